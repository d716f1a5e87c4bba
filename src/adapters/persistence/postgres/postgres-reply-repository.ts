import {
  REGENERATE_LOOKUP_STEPS,
  turnMessages,
  type ConversationName,
  type RegenerateRecord,
  type RegenerateStart,
  type ReplyAdvance,
  type ReplyRepository,
  type TurnRecord,
  type TurnStart,
} from '../../../application/ports/reply-repository.js';
import type { Message } from '../../../domain/message.js';
import { CUT_SHORT } from '../../../domain/reply.js';
import { claimAndInsert, conversationFirst, historyOf, MESSAGE_COLUMNS, messageInput, pathUp, RACED, textArray, toConversation, toDate, toEarlierMessage, toMessage, treeInput, untilSettled, type ConversationRow, type MessageRow } from './rows.js';
import { sql, type Sql, type Statements } from './statements.js';
import { isLostInsertRace } from './unavailable.js';

type BeginRow = {
  claimed: ConversationRow | null;
  existing: ConversationRow | null;
  taken: MessageRow | null;
  taken_reply: MessageRow | null;
  history: MessageRow[];
  inserted: { message_id: string; parent_id: string | null; created_at: string }[];
  unknown_parent: boolean;
  raced: boolean;
};

/**
 * Replies in PostgreSQL, each method one statement: a turn begins in one round trip (claim the
 * conversation, store the user's message, open the reply, read the history), grows with one
 * round trip per batch of text, and ends with one. None of them notifies: news of replies travels
 * apart from every write (postgres-reply-notifications.ts).
 *
 * A statement that writes a reply and its conversation locks the conversation first
 * (`conversationFirst`). replies.begin claims the row (its upsert locks it) and then inserts, and
 * a concurrent begin of the same message waits in the reply_to index for whoever is changing
 * the reply: a statement that changed the reply and then locked the conversation (for
 * active_at, or the message_count trigger) would close a cycle, broken by PostgreSQL's deadlock
 * detector only after a second, or by the statement timeout (503).
 */
/**
 * The CTE `ended`: of the replies a statement removes (`removed`: message_id, finish_reason,
 * metadata), the endings are kept (Migration20261201000000), with a response's record. The
 * statement's snapshot still shows their `messages` and `responses` rows, which the removal takes away.
 */
const keptEnding = (removed: Sql): Sql => sql`ended as (
  insert into response_endings (response_id, conversation_id, user_id, reply_to, created_at, finish_reason, metadata, record)
  select m.message_id, m.conversation_id, m.user_id, m.reply_to, m.created_at, coalesce(e.finish_reason, 'cancelled'), e.metadata,
    case when r.response_id is null then null else to_jsonb(r) end
  from (${removed}) e join messages m on m.message_id = e.message_id left join responses r on r.response_id = e.message_id
  on conflict (response_id) do nothing)`;

export class PostgresReplyRepository implements ReplyRepository {
  constructor(private readonly db: Statements) {}

  async begin(start: TurnStart): Promise<TurnRecord> {
    const { conversationId } = start.conversation;
    const questionId = start.userMessage.messageId;
    const { sent, roots } = turnMessages(start);
    // The history is the path above the question and its context: above the one stored, for a repeated question.
    const questionParent = sql`select case when exists (select 1 from taken where message_id = ${questionId})
        then (select parent_id from taken where message_id = ${questionId}) else (select parent from input where ord = 1) end`;
    const row = await untilSettled(async () => {
      const [result] = await this.db.rows<BeginRow>(
        sql`/* replies.begin */ with recursive ${treeInput(conversationId, sent, start.parentIfStored ?? null, roots)},
         taken_reply as (select * from messages where reply_to = ${questionId} order by created_at desc, seq desc limit 1),
         ${pathUp('above', questionParent, conversationId, start.historyLimit * 2)},
         ${historyOf('above', start.historyLimit)},
         ${claimAndInsert(start.conversation, sent, new Set(sent.map((m) => m.messageId)))}
         select (select row_to_json(c) from claimed c) as claimed,
                (select row_to_json(c) from conversations c where c.conversation_id = ${conversationId}) as existing,
                (select row_to_json(t) from taken t where t.message_id = ${questionId}) as taken,
                (select row_to_json(r) from taken_reply r) as taken_reply,
                coalesce((select json_agg(h order by h.depth) from history h), '[]') as history,
                coalesce((select json_agg(json_build_object('message_id', message_id, 'parent_id', parent_id, 'created_at', created_at)) from inserted), '[]') as inserted,
                exists (select 1 from unknown_parent) as unknown_parent,
                ${RACED} as raced`,
      );
      return result!;
    }, this.db.transactional);
    const stored = row.claimed ?? row.existing;
    const opened = row.inserted.length === sent.length;
    const questionRow = row.inserted.find((i) => i.message_id === questionId);
    return {
      conversation: stored ? toConversation(stored) : null,
      taken: row.taken ? toMessage(row.taken) : null,
      takenReply: row.taken && row.taken_reply ? toMessage(row.taken_reply) : null,
      history: row.history.map(toEarlierMessage),
      opened,
      unknownParent: row.unknown_parent,
      stored: opened && questionRow ? start.userMessage.with({ parentId: questionRow.parent_id, createdAt: toDate(questionRow.created_at) }) : null,
      titled: (stored as { title_source?: string | null } | null)?.title_source != null,
    };
  }

  async regenerate(start: RegenerateStart): Promise<RegenerateRecord> {
    const { conversationId } = start.conversation;
    const { reply } = start;
    const [row] = await this.db.rows<{
      conversation: ConversationRow | null;
      question: MessageRow | null;
      running: MessageRow | null;
      opened: MessageRow | null;
      history: MessageRow[];
    }>(
      sql`/* replies.regenerate */ with recursive ${conversationFirst(conversationId)},
       target as (select * from messages where message_id = ${start.targetId} and conversation_id = ${conversationId}),
       -- a reply stored without what it answers (saved, imported) answers the nearest user message above it
       asked (message_id, role, parent_id, steps) as (
         select m.message_id, m.role, m.parent_id, 1 from target t join messages m on m.message_id = t.parent_id and m.conversation_id = ${conversationId}
         where t.role = 'assistant' and t.reply_to is null
         union all
         select m.message_id, m.role, m.parent_id, a.steps + 1 from asked a join messages m on m.message_id = a.parent_id and m.conversation_id = ${conversationId}
         where a.role <> 'user' and a.steps < ${REGENERATE_LOOKUP_STEPS}),
       question as (
         select m.* from messages m
         where m.message_id = (
             select case t.role when 'user' then t.message_id when 'assistant' then coalesce(t.reply_to, (select a.message_id from asked a where a.role = 'user')) end
             from target t)
           and m.conversation_id = ${conversationId} and m.role = 'user'),
       running as (select * from messages where reply_to = (select message_id from question) and status = 'in_progress' limit 1),
       opened as (
         insert into messages (${MESSAGE_COLUMNS})
         select ${reply.messageId}, q.conversation_id, q.user_id, 'assistant', '', greatest(${reply.createdAt}::timestamptz, q.created_at),
                ${JSON.stringify(reply.metadata)}::jsonb, q.message_id, q.message_id, 'in_progress', ${reply.progressAt}::timestamptz, null
         from question q
         where q.user_id = ${reply.userId} and not exists (select 1 from running) and exists (select 1 from locked)
         on conflict do nothing returning *),
       touched as (
         update conversations set active_at = greatest(active_at, (select created_at from opened))
         where conversation_id = ${conversationId} and exists (select 1 from opened)),
       ${pathUp('above', sql`select parent_id from question`, conversationId, start.historyLimit * 2)},
       ${historyOf('above', start.historyLimit)}
       select (select row_to_json(c) from conversations c where c.conversation_id = ${conversationId}) as conversation,
              (select row_to_json(q) from question q) as question,
              (select row_to_json(r) from running r) as running,
              (select row_to_json(o) from opened o) as opened,
              coalesce((select json_agg(h order by h.depth) from history h), '[]') as history`,
    );
    return {
      conversation: row!.conversation ? toConversation(row!.conversation) : null,
      question: row!.question ? toMessage(row!.question) : null,
      running: row!.running ? toMessage(row!.running) : null,
      opened: row!.opened ? toMessage(row!.opened) : null,
      history: row!.history.map(toEarlierMessage),
    };
  }

  async reopen(reply: Message): Promise<Message | null> {
    // The question's latest reply is replaced when it was cut short (its parent stays the question).
    const latest = sql`select message_id from messages where reply_to = ${reply.replyTo} order by created_at desc, seq desc limit 1`;
    const rows = await this.reopenRows(reply, latest);
    return rows[0] ? toMessage(rows[0]) : null;
  }

  /**
   * The statement of `reopen`. A reply to the same question opened meanwhile by another statement (a
   * regenerate), which this one's snapshot did not see, makes its update break the one-reply-in-progress
   * index: nothing was reopened, and the caller finds that reply and joins it (in a transaction, the
   * unit of work runs again whole).
   */
  private async reopenRows(reply: Message, latest: Sql): Promise<MessageRow[]> {
    try {
      return await this.reopenStatement(reply, latest);
    } catch (error) {
      if (isLostInsertRace(error) && !this.db.transactional) return [];
      throw error;
    }
  }

  private reopenStatement(reply: Message, latest: Sql): Promise<MessageRow[]> {
    return this.db.rows<MessageRow>(
      // Conversation first: a reply added here updates its message_count (trigger).
      sql`/* replies.reopen */ with ${conversationFirst(reply.conversationId)},
       replaced as (
         update messages set message_id = ${reply.messageId}, text = '', draft = null, status = 'in_progress', metadata = ${JSON.stringify(reply.metadata)}::jsonb,
           created_at = ${reply.createdAt}, progress_at = ${reply.progressAt}, finish_reason = null
         where message_id = (${latest}) and status = 'completed' and finish_reason = any(${textArray(CUT_SHORT)})
           and exists (select 1 from locked)
         returning *),
       added as (
         insert into messages (${MESSAGE_COLUMNS})
         select ${MESSAGE_COLUMNS} from ${messageInput([reply])}
         where not exists (select 1 from messages where reply_to = ${reply.replyTo}) and exists (select 1 from locked)
         on conflict do nothing returning *),
       reopened as (select * from replaced union all select * from added),
       moved as (
         update conversations c set head_id = (select message_id from replaced)
         where c.conversation_id = ${reply.conversationId} and exists (select 1 from replaced)),
       children as (update messages set parent_id = ${reply.messageId} where parent_id in (${latest}) and exists (select 1 from replaced))
       select * from reopened`,
    );
  }

  async advance(advances: readonly ReplyAdvance[], at: Date): Promise<string[]> {
    if (advances.length === 0) return [];
    const rows = await this.db.rows<{ message_id: string }>(
      sql`/* replies.advance */ with advanced as (
         update messages m set draft = left(coalesce(m.draft, m.text), v.from_point) || v.piece, progress_at = ${at}
         from unnest(${textArray(advances.map((a) => a.replyId))}, ${advances.map((a) => a.from)}::int[], ${textArray(advances.map((a) => a.text))})
           as v (message_id, from_point, piece)
         where m.message_id = v.message_id and m.status = 'in_progress' returning m.message_id)
       select message_id from advanced`,
    );
    return rows.map((row) => row.message_id);
  }

  async finish(reply: Message, at: Date): Promise<Message | null> {
    return (await this.finishing(reply, at)).message;
  }

  finishAndName(reply: Message, at: Date, name: ConversationName): Promise<{ message: Message | null; named: boolean }> {
    return this.finishing(reply, at, name);
  }

  private async finishing(reply: Message, at: Date, name?: ConversationName): Promise<{ message: Message | null; named: boolean }> {
    const id = reply.messageId;
    const [title, source] = name ? [name.title, name.source] : [null, null];
    const metadata = JSON.stringify(reply.metadata);
    const [row] = await this.db.rows<{ finished: MessageRow | null; current: MessageRow | null; removed: string; named: boolean }>(
      sql`/* replies.finish */ with current as (select * from messages where message_id = ${id}),
       ${conversationFirst(sql`(select conversation_id from current)`)},
       finished as (
         update messages set text = ${reply.text}, draft = null, metadata = ${metadata}::jsonb, status = 'completed',
           progress_at = null, finish_reason = ${reply.finishReason}
         where message_id = ${id} and status = 'in_progress' and ${reply.text} <> '' and exists (select 1 from locked) returning *),
       removed as (
         delete from messages where message_id = ${id} and status = 'in_progress' and ${reply.text} = '' and exists (select 1 from locked)
         returning message_id, parent_id),
       ${keptEnding(sql`select ${id}::text as message_id, ${reply.finishReason}::text as finish_reason, ${metadata}::jsonb as metadata
         where exists (select 1 from removed)`)},
       touched as (
         update conversations c set
           active_at = case when exists (select 1 from finished) then greatest(c.active_at, ${at}) else c.active_at end,
           head_id = case when c.head_id in (select message_id from removed) then (select parent_id from removed) else c.head_id end,
           -- A conversation without a title is named with its first finished reply.
           title = case when c.title_source is null and exists (select 1 from finished) and ${title}::text is not null then ${title}::text else c.title end,
           title_source = case when c.title_source is null and exists (select 1 from finished) and ${title}::text is not null then ${source}::text else c.title_source end,
           titled_by = case when c.title_source is null and exists (select 1 from finished) and ${title}::text is not null then ${id}::text else c.titled_by end
         where c.conversation_id = (select conversation_id from current) and (exists (select 1 from finished) or exists (select 1 from removed))
         returning c.titled_by)
       select (select row_to_json(f) from finished f) as finished,
              (select row_to_json(c) from current c) as current,
              (select count(*) from removed) as removed,
              exists (select 1 from touched where titled_by = ${id}) as named`,
    );
    const named = row!.named === true;
    if (row!.finished) return { message: toMessage(row!.finished), named };
    if (Number(row!.removed) > 0 || !row!.current) return { message: null, named: false };
    return { message: toMessage(row!.current), named: false };
  }

  async inProgressOf(userId: string): Promise<Message[]> {
    const rows = await this.db.rows<MessageRow>(sql`/* replies.in_progress_of */ select * from messages where user_id = ${userId} and status = 'in_progress'`);
    return rows.map(toMessage);
  }

  async findInProgress(conversationId: string): Promise<Message | null> {
    const [row] = await this.db.rows<MessageRow>(
      sql`/* replies.find_in_progress */ select * from messages where conversation_id = ${conversationId} and status = 'in_progress'
       order by created_at desc, seq desc limit 1`,
    );
    return row ? toMessage(row) : null;
  }

  async extendInterrupted(replyId: string, text: string): Promise<Message | null> {
    const [row] = await this.db.rows<{ message: MessageRow | null }>(
      sql`/* replies.extend_interrupted */ with extended as (
         update messages set text = ${text}
         where message_id = ${replyId} and status = 'completed' and finish_reason = 'interrupted'
           and char_length(text) < char_length(${text}) and starts_with(${text}, text)
         returning *)
       select coalesce((select row_to_json(e) from extended e), (select row_to_json(m) from messages m where m.message_id = ${replyId})) as message`,
    );
    return row?.message ? toMessage(row.message) : null;
  }

  async interruptStale(before: Date, at: Date): Promise<number> {
    // The staleness rule of domain/reply.ts (isStale): in progress, no sign of life since `before`.
    const stale = sql`status = 'in_progress' and coalesce(progress_at, created_at) <= ${before}`;
    const rows = await this.db.rows<{ message_id: string }>(
      // Conversations first, in one order (two sweeps never wait on each other in a cycle); the
      // replies then, skipping any a live statement holds.
      sql`/* replies.interrupt_stale */ with candidates as (select conversation_id from messages where ${stale}),
       locked as materialized (
         select conversation_id from conversations where conversation_id in (select conversation_id from candidates)
         order by conversation_id for no key update),
       stale as (
         select message_id, conversation_id, coalesce(draft, text) as text from messages
         where ${stale} and conversation_id in (select conversation_id from locked)
         for update skip locked),
       finished as (
         update messages m set text = s.text, draft = null, status = 'completed', progress_at = null, finish_reason = 'interrupted'
         from stale s where m.message_id = s.message_id and s.text <> '' returning m.message_id, m.conversation_id),
       removed as (
         delete from messages m using stale s where m.message_id = s.message_id and s.text = ''
         returning m.message_id, m.conversation_id, m.parent_id, m.metadata),
       ${keptEnding(sql`select message_id, 'interrupted' as finish_reason, metadata from removed`)},
       touched as (
         update conversations c set
           active_at = case when c.conversation_id in (select conversation_id from finished) then greatest(c.active_at, ${at}) else c.active_at end,
           head_id = coalesce((select r.parent_id from removed r where r.message_id = c.head_id), case when c.head_id in (select message_id from removed) then null else c.head_id end)
         where c.conversation_id in (select conversation_id from finished union select conversation_id from removed))
       select message_id from finished union all select message_id from removed`,
    );
    return rows.length;
  }
}

import type { ReplyRepository, TurnRecord, TurnStart } from '../../../application/ports/reply-repository.js';
import type { Message } from '../../../domain/message.js';
import { CUT_SHORT } from '../../../domain/reply.js';
import { claimAndInsert, conversationFirst, MESSAGE_COLUMNS, messageInput, textArray, toConversation, toMessage, type ConversationRow, type MessageRow } from './rows.js';
import { raw, sql, type Statements } from './statements.js';

/** The channel on which every write to a reply is announced (payload: the reply's id). */
export const REPLY_CHANNEL = 'assistant_replies';
/** The channel on which stops are asked for (payload: the reply's id). */
export const STOP_CHANNEL = 'assistant_reply_stops';

const notifyReply = raw(`pg_notify('${REPLY_CHANNEL}', message_id)`);

/**
 * Replies in PostgreSQL, each method one statement: a turn begins in one round trip (claim the
 * conversation, store the user's message, open the reply, read the history), grows with one
 * round trip per batch of text, and ends with one. Writes announce themselves with pg_notify.
 *
 * A statement that writes a reply and its conversation locks the conversation first
 * (`conversationFirst`). replies.begin claims the row (its upsert locks it) and then inserts, and
 * a concurrent begin of the same message waits in the reply_to index for whoever is changing
 * the reply: a statement that changed the reply and then locked the conversation (for
 * active_at, or the message_count trigger) would close a cycle, broken by PostgreSQL's deadlock
 * detector only after a second, or by the statement timeout (503).
 */
export class PostgresReplyRepository implements ReplyRepository {
  constructor(private readonly db: Statements) {}

  async begin(start: TurnStart): Promise<TurnRecord> {
    const { conversationId } = start.conversation;
    const questionId = start.userMessage.messageId;
    const [row] = await this.db.rows<{
      claimed: ConversationRow | null;
      existing: ConversationRow | null;
      taken: MessageRow | null;
      taken_reply: MessageRow | null;
      history: MessageRow[];
      inserted: string;
    }>(
      sql`/* replies.begin */ with input as (select * from ${messageInput([start.userMessage, start.reply])}),
       taken as (select * from messages where message_id = ${questionId}),
       taken_reply as (select * from messages where reply_to = ${questionId}),
       history as (
         select * from messages where conversation_id = ${conversationId} and status = 'completed'
         order by created_at desc, seq desc limit ${start.historyLimit}),
       ${claimAndInsert(start.conversation)}
       select (select row_to_json(c) from claimed c) as claimed,
              (select row_to_json(c) from conversations c where c.conversation_id = ${conversationId}) as existing,
              (select row_to_json(t) from taken t) as taken,
              (select row_to_json(r) from taken_reply r) as taken_reply,
              coalesce((select json_agg(h order by h.created_at desc, h.seq desc) from history h), '[]') as history,
              (select count(*) from inserted) as inserted`,
    );
    const stored = row!.claimed ?? row!.existing;
    return {
      conversation: stored ? toConversation(stored) : null,
      taken: row!.taken ? toMessage(row!.taken) : null,
      takenReply: row!.taken && row!.taken_reply ? toMessage(row!.taken_reply) : null,
      history: row!.history.map(toMessage),
      opened: Number(row!.inserted) === 2,
    };
  }

  async reopen(reply: Message): Promise<Message | null> {
    const rows = await this.db.rows<MessageRow>(
      // Conversation first: a reply added here updates its message_count (trigger).
      sql`/* replies.reopen */ with ${conversationFirst(reply.conversationId)},
       replaced as (
         update messages set message_id = ${reply.messageId}, text = '', status = 'in_progress', metadata = ${JSON.stringify(reply.metadata)}::jsonb,
           created_at = ${reply.createdAt}, progress_at = ${reply.progressAt}, finish_reason = null
         where reply_to = ${reply.replyTo} and status = 'completed' and finish_reason = any(${textArray(CUT_SHORT)})
           and exists (select 1 from locked)
         returning *),
       added as (
         insert into messages (${MESSAGE_COLUMNS})
         select ${MESSAGE_COLUMNS} from ${messageInput([reply])}
         where not exists (select 1 from messages where reply_to = ${reply.replyTo}) and exists (select 1 from locked)
         on conflict do nothing returning *)
       select * from replaced union all select * from added`,
    );
    return rows[0] ? toMessage(rows[0]) : null;
  }

  async advance(replyId: string, text: string, at: Date): Promise<boolean> {
    const rows = await this.db.rows<{ message_id: string }>(
      sql`/* replies.advance */ with advanced as (
         update messages set text = text || ${text}, progress_at = ${at} where message_id = ${replyId} and status = 'in_progress' returning message_id)
       select message_id, ${notifyReply} from advanced`,
    );
    return rows.length > 0;
  }

  async finish(reply: Message, at: Date): Promise<Message | null> {
    const id = reply.messageId;
    const [row] = await this.db.rows<{ finished: MessageRow | null; current: MessageRow | null; removed: string }>(
      sql`/* replies.finish */ with current as (select * from messages where message_id = ${id}),
       ${conversationFirst(sql`(select conversation_id from current)`)},
       finished as (
         update messages set text = ${reply.text}, metadata = ${JSON.stringify(reply.metadata)}::jsonb, status = 'completed',
           progress_at = null, finish_reason = ${reply.finishReason}
         where message_id = ${id} and status = 'in_progress' and ${reply.text} <> '' and exists (select 1 from locked) returning *),
       removed as (
         delete from messages where message_id = ${id} and status = 'in_progress' and ${reply.text} = '' and exists (select 1 from locked)
         returning message_id),
       touched as (
         update conversations set active_at = greatest(active_at, ${at})
         where conversation_id = (select conversation_id from finished))
       select (select row_to_json(f) from finished f) as finished,
              (select row_to_json(c) from current c) as current,
              (select count(*) from removed) as removed,
              pg_notify(${REPLY_CHANNEL}, ${id})`,
    );
    if (row!.finished) return toMessage(row!.finished);
    if (Number(row!.removed) > 0 || !row!.current) return null;
    return toMessage(row!.current);
  }

  async findInProgress(conversationId: string): Promise<Message | null> {
    const [row] = await this.db.rows<MessageRow>(
      sql`/* replies.find_in_progress */ select * from messages where conversation_id = ${conversationId} and status = 'in_progress'
       order by created_at desc, seq desc limit 1`,
    );
    return row ? toMessage(row) : null;
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
         select message_id, conversation_id, text from messages
         where ${stale} and conversation_id in (select conversation_id from locked)
         for update skip locked),
       finished as (
         update messages m set status = 'completed', progress_at = null, finish_reason = 'interrupted'
         from stale s where m.message_id = s.message_id and s.text <> '' returning m.message_id, m.conversation_id),
       removed as (delete from messages m using stale s where m.message_id = s.message_id and s.text = '' returning m.message_id),
       touched as (
         update conversations c set active_at = greatest(c.active_at, ${at})
         where c.conversation_id in (select conversation_id from finished))
       select message_id, ${notifyReply}
       from (select message_id from finished union all select message_id from removed) ended`,
    );
    return rows.length;
  }
}

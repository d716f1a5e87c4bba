import type { ConversationPage, ConversationPosition, ConversationRepository, ConversationSummary, Deleted, Expiry } from '../../../application/ports/conversation-repository.js';
import type { ConversationName } from '../../../application/ports/reply-repository.js';
import { shownTitle, TITLE_SOURCE_PREFIX, type Conversation, type ConversationChanges, type TitleSource } from '../../../domain/conversation.js';
import { textArray, toConversation, toDate, type ConversationRow, type Timestamp } from './rows.js';
import { empty, sql, type Sql, type Statements } from './statements.js';

type SummaryRow = ConversationRow & {
  message_count: number;
  title: string | null;
  title_source: TitleSource | null;
  pinned: boolean;
  archived: boolean;
  session_title: string | null;
  first_text: string | null;
};

/** Any fixed number: the advisory lock one sweep at a time holds (the same on every instance). */
const SWEEP_LOCK = 7_342_019_662;

/**
 * Conversations in PostgreSQL; each method is one statement. A conversation's messages and
 * sessions go with it (foreign keys `on delete cascade`); the message_count trigger runs for them.
 */
export class PostgresConversationRepository implements ConversationRepository {
  constructor(private readonly db: Statements) {}

  async findById(conversationId: string): Promise<Conversation | null> {
    const [row] = await this.db.rows<ConversationRow>(sql`select * from conversations where conversation_id = ${conversationId}`);
    return row ? toConversation(row) : null;
  }

  async summary(conversationId: string): Promise<ConversationSummary | null> {
    const [row] = await this.db.rows<SummaryRow>(sql`/* conversations.summary */ ${summaries(sql`c.conversation_id = ${conversationId}`)}`);
    return row ? toSummary(row) : null;
  }

  async listByUser(userId: string, limit: number, after: ConversationPosition | null, archived: boolean): Promise<ConversationPage> {
    const seek = after ? sql`and (c.pinned, c.active_at, c.conversation_id) < (${after.pinned}, ${after.activeAt}, ${after.conversationId})` : empty;
    const rows = await this.db.rows<SummaryRow>(
      sql`/* conversations.list_by_user */ ${summaries(sql`c.user_id = ${userId} and not c.temporary and c.archived = ${archived} ${seek}`)}
       order by c.pinned desc, c.active_at desc, c.conversation_id desc
       limit ${limit + 1}`,
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map(toSummary),
      next: rows.length > limit && last ? { pinned: last.pinned, activeAt: toDate(last.active_at), conversationId: last.conversation_id } : null,
    };
  }

  async update(conversationId: string, userId: string, changes: ConversationChanges): Promise<ConversationSummary | null> {
    const set: Sql[] = [];
    if (changes.title !== undefined) set.push(changes.title === null ? sql`title = null, title_source = null` : sql`title = ${changes.title}, title_source = 'user'`);
    if (changes.pinned !== undefined) set.push(sql`pinned = ${changes.pinned}`);
    if (changes.archived !== undefined) set.push(sql`archived = ${changes.archived}`);
    const assignments = set.length === 0 ? sql`conversation_id = conversation_id` : set.reduce((a, b) => sql`${a}, ${b}`);
    const [row] = await this.db.rows<SummaryRow>(
      sql`/* conversations.update */ with updated as (
         update conversations set ${assignments} where conversation_id = ${conversationId} and user_id = ${userId} returning *)
       ${summaries(sql`true`, sql`updated`)}`,
    );
    return row ? toSummary(row) : null;
  }

  async nameUnlessUserDid(conversationId: string, title: string, source: TitleSource): Promise<boolean> {
    const changed = await this.db.changed(
      sql`/* conversations.name */ update conversations set title = ${title}, title_source = ${source}
       where conversation_id = ${conversationId} and coalesce(title_source, '') <> 'user'
         and (${source} = 'generated' or title_source is null)`,
    );
    return changed > 0;
  }

  async namedBy(replies: readonly { conversationId: string; replyId: string }[]): Promise<Map<string, ConversationName>> {
    if (replies.length === 0) return new Map();
    const rows = await this.db.rows<{ titled_by: string; title: string; title_source: TitleSource }>(
      sql`/* conversations.named_by */ select c.titled_by, c.title, c.title_source from conversations c
       join unnest(${textArray(replies.map((r) => r.conversationId))}, ${textArray(replies.map((r) => r.replyId))}) as v (conversation_id, reply_id)
         on c.conversation_id = v.conversation_id and c.titled_by = v.reply_id
       where c.title_source <> 'user'`,
    );
    return new Map(rows.map((row) => [row.titled_by, { title: row.title, source: row.title_source }]));
  }

  async deleteOwned(conversationId: string, userId: string): Promise<Deleted> {
    const [row] = await this.db.rows<CountsRow>(
      sql`/* conversations.delete_owned */ with doomed as (
         select conversation_id from conversations where conversation_id = ${conversationId} and user_id = ${userId} for update),
       ${counted(sql`select conversation_id from doomed`)}
       select * from counts`,
    );
    return countsOf(row!);
  }

  async eraseUser(userId: string): Promise<Deleted & { users: number }> {
    const [row] = await this.db.rows<CountsRow & { users: string }>(
      sql`/* conversations.erase_user */ with doomed as (
         select conversation_id from conversations where user_id = ${userId} for update),
       ${counted(sql`select conversation_id from doomed`)},
       user_gone as (delete from users where user_id = ${userId} returning 1)
       select *, (select count(*) from user_gone) as users from counts`,
    );
    return { ...countsOf(row!), users: Number(row!.users) };
  }

  async sweepExpired(expiry: Expiry): Promise<{ temporary: number; retained: number; messages: number }> {
    const temporary = expiry.temporaryBefore ? sql`(c.temporary and c.active_at < ${expiry.temporaryBefore})` : sql`false`;
    const retained = expiry.retainedBefore ? sql`c.active_at < ${expiry.retainedBefore}` : sql`false`;
    // One sweep at a time across instances (the lock lasts the statement); within it, a row
    // another statement holds is skipped, so each conversation is deleted once.
    const [row] = await this.db.rows<{ temporary: string; retained: string; messages: string }>(
      sql`/* conversations.sweep */ with lock as materialized (select pg_try_advisory_xact_lock(${SWEEP_LOCK}) as held),
       doomed as materialized (
         select c.conversation_id, ${temporary} as is_temporary from conversations c
         where (select held from lock) and (${temporary} or ${retained})
         order by c.active_at limit ${expiry.batch} for update skip locked),
       messages_gone as (delete from messages where conversation_id in (select conversation_id from doomed) returning 1),
       gone as (delete from conversations where conversation_id in (select conversation_id from doomed) returning conversation_id)
       select (select count(*) from doomed where is_temporary) as temporary,
              (select count(*) from doomed where not is_temporary) as retained,
              (select count(*) from messages_gone) as messages`,
    );
    return { temporary: Number(row!.temporary), retained: Number(row!.retained), messages: Number(row!.messages) };
  }
}

type CountsRow = { conversations: string; messages: string; sessions: string };

/** CTEs deleting the conversations `ids` selects with their messages and sessions, and `counts`: how many of each. */
function counted(ids: Sql): Sql {
  return sql`messages_gone as (delete from messages where conversation_id in (${ids}) returning 1),
       sessions_gone as (delete from sessions where conversation_id in (${ids}) returning 1),
       conversations_gone as (delete from conversations where conversation_id in (${ids}) returning 1),
       counts as (select (select count(*) from conversations_gone) as conversations, (select count(*) from messages_gone) as messages,
                         (select count(*) from sessions_gone) as sessions)`;
}

const countsOf = (row: CountsRow): Deleted => ({ conversations: Number(row.conversations), messages: Number(row.messages), sessions: Number(row.sessions) });

/** Conversations (`from`, the table by default) with what a summary shows. */
function summaries(where: Sql, from: Sql = sql`conversations`): Sql {
  return sql`select c.*,
         (select s.title from sessions s where s.conversation_id = c.conversation_id and s.title is not null
            order by s.updated_at desc limit 1) as session_title,
         (select left(m.text, ${TITLE_SOURCE_PREFIX}) from messages m where m.conversation_id = c.conversation_id
            order by m.created_at, m.seq limit 1) as first_text
       from ${from} c where ${where}`;
}

function toSummary(row: SummaryRow): ConversationSummary {
  const { title, titleSource } = shownTitle(row.title, row.title_source, row.session_title, row.first_text);
  return {
    conversation: toConversation(row),
    title,
    titleSource,
    activeAt: toDate(row.active_at as Timestamp),
    lastMessageAt: row.message_count > 0 ? toDate(row.active_at) : null,
    messageCount: row.message_count,
    headId: row.head_id,
    pinned: row.pinned,
    archived: row.archived,
  };
}

import type { EarlierMessage } from '../../../domain/chat-history.js';
import { Conversation } from '../../../domain/conversation.js';
import { Message, type MessageStatus, type Role } from '../../../domain/message.js';
import { Session } from '../../../domain/session.js';
import { raw, sql, type Sql } from './statements.js';
import { isLostInsertRace } from './unavailable.js';

/**
 * Rows as PostgreSQL returns them (snake_case; bigint as strings; timestamps as Dates, or as
 * strings inside row_to_json), their domain objects, and the SQL fragments several statements
 * share. The tables themselves are described by the migrations.
 */
export type Timestamp = Date | string;

export const toDate = (value: Timestamp): Date => (value instanceof Date ? value : new Date(value));
export const toDateOrNull = (value: Timestamp | null): Date | null => (value === null ? null : toDate(value));

export interface MessageRow {
  message_id: string;
  seq: string;
  conversation_id: string;
  user_id: string;
  role: Role;
  text: string;
  /** A reply in progress: its text so far, when written since it began (Migration20261204000000); else null. */
  draft?: string | null;
  created_at: Timestamp;
  metadata: Record<string, unknown>;
  reply_to: string | null;
  parent_id: string | null;
  status: MessageStatus;
  progress_at: Timestamp | null;
  finish_reason: string | null;
}

export interface ConversationRow {
  conversation_id: string;
  user_id: string;
  created_at: Timestamp;
  active_at: Timestamp;
  head_id: string | null;
  temporary?: boolean;
}

export const toConversation = (row: Pick<ConversationRow, 'conversation_id' | 'user_id' | 'created_at' | 'temporary'>) =>
  Conversation.restore({ conversationId: row.conversation_id, userId: row.user_id, createdAt: toDate(row.created_at), temporary: row.temporary === true });

export const toMessage = (row: MessageRow) =>
  Message.restore({
    messageId: row.message_id,
    conversationId: row.conversation_id,
    userId: row.user_id,
    role: row.role,
    text: row.draft ?? row.text,
    createdAt: toDate(row.created_at),
    metadata: row.metadata,
    replyTo: row.reply_to,
    parentId: row.parent_id,
    status: row.status,
    progressAt: toDateOrNull(row.progress_at),
    finishReason: row.finish_reason,
  });

/**
 * A message row as a turn's history needs it (EarlierMessage): a chat turn reads twenty of them,
 * and a whole Message of each (its times parsed, its metadata checked) went unread.
 */
export const toEarlierMessage = (row: MessageRow): EarlierMessage => ({
  messageId: row.message_id,
  role: row.role,
  text: row.draft ?? row.text,
  replyTo: row.reply_to,
  status: row.status,
});

export interface SessionRow {
  session_id: string;
  conversation_id: string;
  user_id: string;
  title: string | null;
  started_at: Timestamp | null;
  ended_at: Timestamp | null;
  metadata: Record<string, unknown>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export const toSession = (row: SessionRow) =>
  Session.restore({
    sessionId: row.session_id,
    conversationId: row.conversation_id,
    userId: row.user_id,
    title: row.title,
    startedAt: toDateOrNull(row.started_at),
    endedAt: toDateOrNull(row.ended_at),
    metadata: row.metadata,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  });

/** A list of values as one parameter: `= any(${textArray(ids)})`. */
export const textArray = (values: readonly string[]): Sql => sql`${[...values]}::text[]`;

/** The columns a message is written with, in the order of `messageInput`. */
export const MESSAGE_COLUMNS = sql`message_id, conversation_id, user_id, role, text, created_at, metadata, reply_to, parent_id, status, progress_at, finish_reason`;

/**
 * Messages as rows of one JSON parameter, in the order given (`ord`): a FROM item named
 * `input` with MESSAGE_COLUMNS and `ord`.
 */
export function messageInput(messages: readonly Message[]): Sql {
  const json = JSON.stringify(
    messages.map((m) => ({
      message_id: m.messageId,
      conversation_id: m.conversationId,
      user_id: m.userId,
      role: m.role,
      text: m.text,
      created_at: m.createdAt,
      metadata: m.metadata,
      reply_to: m.replyTo,
      parent_id: m.parentId,
      status: m.status,
      progress_at: m.progressAt,
      finish_reason: m.finishReason,
    })),
  );
  return sql`rows from (json_to_recordset(${json}::json) as (
      message_id text, conversation_id text, user_id text, role text, text text, created_at timestamptz,
      metadata jsonb, reply_to text, parent_id text, status text, progress_at timestamptz, finish_reason text))
    with ordinality as input(message_id, conversation_id, user_id, role, text, created_at, metadata, reply_to, parent_id, status, progress_at, finish_reason, ord)`;
}

/**
 * The body of an `unchanged` CTE: the conversation's row as `locked` (selecting `xmin as version`)
 * holds it, when this statement's snapshot shows that same version; empty when another statement
 * changed the conversation (every change of its messages does, through message_count or head_id)
 * after the snapshot was taken, while this one waited for the lock: what the snapshot shows of its
 * tree is then out of date, and the statement RACED.
 */
export const UNCHANGED = sql`select l.conversation_id from locked l
         where exists (select 1 from conversations c where c.conversation_id = l.conversation_id and c.xmin = l.version)`;

const NONE: ReadonlySet<string> = new Set();

/**
 * The CTEs that read `messages` into a conversation's tree, within one statement: `locked` (the
 * conversation's row, locked first — see postgres-reply-repository.ts — with its head and last
 * activity as they are now), `sent` (the messages), `input` (each with the `parent` it gets: its own `parent_id`;
 * else the message sent before it; for the first one, `parentIfStored` when that is a message of
 * the conversation, else the head; none for a message listed in `roots`), `taken` (sent ids already stored), `unknown_parent` (sent messages whose `parent_id`
 * is neither a message of the conversation nor one sent before them) and `followed` (`at`: the time of the latest stored message a sent one
 * follows, null when none; see there).
 */
export function treeInput(conversationId: string, messages: readonly Message[], parentIfStored: string | null = null, roots: ReadonlySet<string> = NONE): Sql {
  // A stored parent named (not the head, which `locked` reads as it is now; not a message sent along,
  // as a reply's question) is looked for in this statement's snapshot: when the conversation changed
  // after it was taken (a delete of that parent, while this statement waited for the lock),
  // `unchanged` is empty, nothing is inserted, and the statement RACED.
  const sentIds = new Set(messages.map((m) => m.messageId));
  const named = parentIfStored !== null || messages.some((m) => m.parentId !== null && !sentIds.has(m.parentId));
  const unchanged = named ? UNCHANGED : sql`select conversation_id from locked`;
  return sql`locked as materialized (
         select conversation_id, head_id, active_at, xmin as version from conversations where conversation_id = ${conversationId} for no key update),
       unchanged as materialized (${unchanged}),
       sent as (select * from ${messageInput(messages)}),
       input as materialized (
         select s.*, case
             when s.parent_id is not null then s.parent_id
             when s.message_id = any(${textArray([...roots])}) then null
             when s.ord = 1 then coalesce(
               (select m.message_id from messages m where m.message_id = ${parentIfStored} and m.conversation_id = ${conversationId}),
               (select head_id from locked))
             else (select e.message_id from sent e where e.ord = s.ord - 1)
           end as parent
         from sent s),
       taken as (select m.* from messages m where m.message_id = any(array(select message_id from input))),
       -- A stored message is looked up by its key for each sent one (a scalar subquery): a join would
       -- let a generic plan read the whole conversation (json_to_recordset is estimated at 100 rows),
       -- a cost that grows with the conversation.
       unknown_parent as (
         select s.message_id from sent s
         where s.parent_id is not null
           and (select m.conversation_id from messages m where m.message_id = s.parent_id) is distinct from ${conversationId}
           and not exists (select 1 from sent e where e.message_id = s.parent_id and e.ord < s.ord)),
       -- Only the first message and those naming a parent can follow a stored one. A head written by a
       -- statement that ended while this one waited for the lock is not in this statement's snapshot:
       -- the conversation's last activity, which that statement moved to at least its messages' time
       -- (claimAndInsert), stands for it.
       followed as materialized (
         select greatest(
           (select max((select m.created_at from messages m where m.message_id = i.parent and m.conversation_id = ${conversationId}))
            from input i where i.ord = 1 or i.parent_id is not null),
           (select l.active_at from locked l
            where l.head_id in (select parent from input) and not exists (select 1 from messages m where m.message_id = l.head_id))) as at)`;
}

/**
 * The CTEs that claim `conversation` and store the `input` rows (treeInput) in it, within one
 * statement: `claimed` (reading all of `locked` before its upsert: the statement's CTEs run in no
 * set order, and a row this statement has already updated can no longer be locked by it, so a
 * `locked` read after the upsert would be empty; then the conversation created, or its last activity moved,
 * to the latest time of the messages `stamped` too; empty when another
 * user owns it, or when `taken` or `unknown_parent` holds anything), `owner` (its user, stored with
 * a conversation that was created) and `inserted` (the ids stored, with their parents and times, those
 * `stamped` no earlier than `followed` (AppendOptions.stamped); a second reply
 * in progress to one message is skipped; an id stored by a concurrent statement that this one's
 * snapshot did not see fails the whole statement, so it keeps nothing, neither the conversation it
 * made nor the other messages: untilSettled runs it again; the ids of `messages` are distinct;
 * nothing is stored when the statement RACED). The last message inserted becomes the head: the `messages` insert trigger moves it
 * (Migration20261126000000), so a message that was not inserted never does.
 */
export function claimAndInsert(conversation: Conversation, messages: readonly Message[], stamped: ReadonlySet<string> = NONE): Sql {
  const { conversationId, userId, createdAt, temporary } = conversation;
  const dated = messages.filter((m) => stamped.has(m.messageId));
  const floor = dated.length > 0 ? sql`(select at from followed)` : sql`null::timestamptz`;
  // The latest time a `stamped` message gets: the conversation is active until then at least (`followed` counts on it).
  const latest = dated.length > 0 ? sql`greatest(${new Date(Math.max(...dated.map((m) => m.createdAt.getTime())))}::timestamptz, ${floor})` : sql`null::timestamptz`;
  return sql`claimed as (
         insert into conversations (conversation_id, user_id, created_at, active_at, temporary)
         select ${conversationId}, ${userId}, ${createdAt}, greatest(${createdAt}::timestamptz, ${latest}), ${temporary}
         from (select count(*) from locked) as locked_first
         where not exists (select 1 from taken) and not exists (select 1 from unknown_parent)
         on conflict (conversation_id) do update set active_at = greatest(conversations.active_at, excluded.active_at)
           where conversations.user_id = excluded.user_id
         returning *, xmax = 0 as created),
       owner as (
         insert into users (user_id, created_at) select user_id, created_at from claimed where created
         on conflict (user_id) do nothing),
       inserted as (
         insert into messages (${MESSAGE_COLUMNS})
         select i.message_id, c.conversation_id, c.user_id, i.role, i.text,
           case when (${messages.map((m) => stamped.has(m.messageId))}::boolean[])[i.ord::int] then greatest(i.created_at, ${floor}) else i.created_at end,
           i.metadata, i.reply_to, i.parent, i.status, i.progress_at, i.finish_reason
         from input i cross join claimed c where c.created or exists (select 1 from unchanged) order by i.ord
         on conflict (reply_to) where status = 'in_progress' do nothing
         returning message_id, parent_id, created_at)`;
}

/**
 * True when the statement raced another one that created the conversation: the row was not there
 * for this statement's snapshot (`locked` empty, so every parent was read as "no head"), yet the
 * upsert found it: this user's (it was updated, `created` false) or another user's (it was left
 * alone, and `claimed` is empty, while the snapshot shows no owner either). Or the statement named
 * a parent and the conversation changed while it waited for the lock (`unchanged` empty: treeInput).
 * Nothing was inserted (claimAndInsert); run the statement again, which now locks the row, or sees
 * whose it is, and reads the tree as it is.
 */
export const RACED = sql`((not exists (select 1 from locked) and not exists (select 1 from claimed where created)
  and not exists (select 1 from taken) and not exists (select 1 from unknown_parent))
  or (exists (select 1 from locked) and not exists (select 1 from unchanged)))`;

/**
 * Runs `attempt` again while it reports a race (RACED), or while it failed on an id a concurrent
 * statement stored after this one's snapshot was taken (a unique violation: claimAndInsert does not
 * skip taken ids it did not see, so nothing of the statement was kept, neither the conversation it
 * made nor the other messages), `attempts` times at most. The second run sees what the other
 * stored. In a transaction (`transactional`) the violation aborted it: it is thrown, and the unit
 * of work runs again whole.
 */
export async function untilSettled<T extends { raced: boolean }>(attempt: () => Promise<T>, transactional: boolean, attempts = 3): Promise<T> {
  for (let tries = 1; ; tries++) {
    let result: T;
    try {
      result = await attempt();
    } catch (error) {
      if (isLostInsertRace(error) && !transactional && tries < attempts) continue;
      throw error;
    }
    if (!result.raced || tries >= attempts) return result;
  }
}

/** The conversation row, locked before any of its messages is written (see postgres-reply-repository.ts). */
export const conversationFirst = (conversationId: unknown) =>
  sql`locked as materialized (select conversation_id, head_id from conversations where conversation_id = ${conversationId} for no key update)`;

/**
 * A recursive CTE `path(message_id, parent_id, depth)`: the messages from `from` up through their
 * parents, `from` at depth 1, at most `maxDepth` of them (null: to the first message), when `when` holds. Each step
 * is one primary-key lookup (a lateral subquery: `offset 0` keeps a plan made on small tables from
 * joining the walk with the whole table), so a bounded walk costs the same whatever the size of the tree.
 */
export function pathUp(name: string, from: Sql, conversationId: string, maxDepth: number | null, when: Sql = sql`true`): Sql {
  const bound = maxDepth === null ? sql`` : sql`where p.depth < ${maxDepth}`;
  return sql`${raw(name)}(message_id, parent_id, depth) as (
         select m.message_id, m.parent_id, 1 from messages m where m.message_id = (${from}) and m.conversation_id = ${conversationId} and ${when}
         union all
         select m.message_id, m.parent_id, p.depth + 1 from ${raw(name)} p
         cross join lateral (select message_id, parent_id from messages where message_id = p.parent_id offset 0) m ${bound})`;
}

/**
 * A CTE `history`: the finished messages of a `pathUp` walk named `path`, nearest first, at most
 * `limit`: a model's history above a question. Each read by its key, as the walk reads them.
 */
export function historyOf(path: string, limit: number): Sql {
  return sql`history as (
         select m.*, p.depth from ${raw(path)} p cross join lateral (select * from messages where message_id = p.message_id offset 0) m
         where m.status = 'completed' order by p.depth limit ${limit})`;
}

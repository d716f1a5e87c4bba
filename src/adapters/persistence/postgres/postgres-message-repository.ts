import type {
  AppendOptions,
  AppendResult,
  BranchPage,
  BranchQuery,
  ImportedConversation,
  ImportOutcome,
  MessagePage,
  MessagePosition,
  MessageRepository,
  OwnedPage,
  Siblings,
  SortOrder,
} from '../../../application/ports/message-repository.js';
import type { Conversation } from '../../../domain/conversation.js';
import type { Message } from '../../../domain/message.js';
import { claimAndInsert, MESSAGE_COLUMNS, messageInput, pathUp, RACED, textArray, toConversation, toDate, toMessage, treeInput, UNCHANGED, untilSettled, type ConversationRow, type MessageRow } from './rows.js';
import { empty, raw, sql, type Sql, type Statements } from './statements.js';

/**
 * Conversations imported between two discards of the connection's cached plans. An import grows
 * the tables fast, and plans made while they were small (the insert trigger's among them) would go
 * on scanning them whole until the next ANALYZE, quadratic over a large file; remade plans see
 * the tables as they are. The prepared statements stay; only their plans are remade.
 */
const IMPORTS_PER_REPLAN = 100;
let importsSinceReplan = 0;

type SiblingsRow = { sibling_count: string; sibling_index: string; previous_id: string | null; next_id: string | null };

type AppendRow = {
  claimed: ConversationRow | null;
  existing: ConversationRow | null;
  taken: MessageRow[];
  inserted: { message_id: string; parent_id: string | null; created_at: string }[];
  unknown_parents: string[];
  raced: boolean;
};

/**
 * Messages in PostgreSQL. Every method is one statement (one round trip), atomic by itself;
 * conversation counts are kept by the database's own trigger on `messages`. A conversation is a
 * tree through `parent_id`; branches are read by walking parent pointers (one primary-key lookup
 * per message), siblings through the `messages_children` index. A conversation that never forked
 * (`conversations.forked`, kept by the insert trigger) is one chain in insertion order, read as such.
 */
export class PostgresMessageRepository implements MessageRepository {
  constructor(private readonly db: Statements) {}

  async findById(messageId: string): Promise<Message | null> {
    const [row] = await this.db.rows<MessageRow>(sql`select * from messages where message_id = ${messageId}`);
    return row ? toMessage(row) : null;
  }

  async findByIds(messageIds: readonly string[]): Promise<Message[]> {
    if (messageIds.length === 0) return [];
    const rows = await this.db.rows<MessageRow>(sql`/* messages.find_by_ids */ select * from messages where message_id = any(${textArray(messageIds)})`);
    return rows.map(toMessage);
  }

  async findReplyTo(userMessageId: string): Promise<Message | null> {
    const [row] = await this.db.rows<MessageRow>(
      sql`select * from messages where reply_to = ${userMessageId} order by created_at desc, seq desc limit 1`,
    );
    return row ? toMessage(row) : null;
  }

  async append(conversation: Conversation, messages: Message[], options: AppendOptions = {}): Promise<AppendResult> {
    // One message sent twice in a request (the same, or the caller refused it) is stored once.
    const seen = new Set<string>();
    const unique = messages.filter((m) => !seen.has(m.messageId) && seen.add(m.messageId));
    const row = await untilSettled(() => this.appendOnce(conversation, unique, options), this.db.transactional);
    const stored = row.claimed ?? row.existing;
    return {
      conversation: stored ? toConversation(stored) : null,
      taken: row.taken.map(toMessage),
      inserted: row.inserted.map((i) => ({ messageId: i.message_id, parentId: i.parent_id, createdAt: toDate(i.created_at) })),
      unknownParents: row.unknown_parents,
    };
  }

  private async appendOnce(conversation: Conversation, messages: Message[], { roots, stamped }: AppendOptions): Promise<AppendRow> {
    const [row] = await this.db.rows<AppendRow>(
      sql`/* messages.append */ with ${treeInput(conversation.conversationId, messages, null, roots)},
       ${claimAndInsert(conversation, messages, stamped)}
       select (select row_to_json(c) from claimed c) as claimed,
              (select row_to_json(c) from conversations c where c.conversation_id = ${conversation.conversationId}) as existing,
              coalesce((select json_agg(t) from taken t), '[]') as taken,
              coalesce((select json_agg(json_build_object('message_id', message_id, 'parent_id', parent_id, 'created_at', created_at)) from inserted), '[]') as inserted,
              coalesce((select json_agg(message_id) from unknown_parent), '[]') as unknown_parents,
              ${RACED} as raced`,
    );
    return row!;
  }

  async importConversation(imported: ImportedConversation): Promise<ImportOutcome> {
    const { conversationId: id, userId } = imported.conversation;
    // Another user's import or write that made the conversation after this statement's snapshot was
    // taken: the upsert left that row alone, and the snapshot shows no owner. Nothing was written;
    // the statement runs again, and sees the owner.
    const { owner, made, created, conflicts } = await untilSettled(() => this.importStatement(imported), this.db.transactional);
    if (owner !== null && owner !== userId) return { outcome: 'foreign', created: 0, skipped: 0, conflicts: [] };
    // Made by this statement, or found: by the upsert, not by the snapshot (the same file imported at once twice made it once).
    const outcome = made === true || (made === null && owner === null) ? 'created' : 'existing';
    if (conflicts.length > 0) return { outcome, created: 0, skipped: 0, conflicts };
    const headId = imported.headId ?? imported.messages.at(-1)?.messageId ?? null;
    if (created > 0) await this.db.changed(sql`/* messages.import_head */ update conversations set head_id = ${headId} where conversation_id = ${id} and user_id = ${userId}`);
    if (++importsSinceReplan >= IMPORTS_PER_REPLAN) {
      importsSinceReplan = 0;
      await this.db.changed(sql`discard plans`);
    }
    return { outcome, created, skipped: imported.messages.length - created, conflicts: [] };
  }

  private async importStatement(imported: ImportedConversation): Promise<{ owner: string | null; made: boolean | null; created: number; conflicts: string[]; raced: boolean }> {
    const { conversationId: id, userId, createdAt } = imported.conversation;
    // The insert trigger makes the last message inserted the head; the head given is set after it.
    const [row] = await this.db.rows<{ owner: string | null; made: boolean | null; created: number; conflicts: string[] }>(
      sql`/* messages.import */ with existing as materialized (
         select user_id from conversations where conversation_id = ${id} for no key update),
       sent as materialized (select * from ${messageInput(imported.messages)}),
       conflict as (select m.message_id from messages m join sent s on s.message_id = m.message_id where m.conversation_id <> ${id}),
       claimed as (
         insert into conversations (conversation_id, user_id, created_at, active_at, temporary, title, title_source, pinned, archived)
         select ${id}, ${userId}, ${createdAt}, ${imported.activeAt}, false, ${imported.title}, ${imported.titleSource}, ${imported.pinned}, ${imported.archived}
         from (select count(*) from existing) as existing_first -- read before the upsert: see claimAndInsert (rows.ts)
         where not exists (select 1 from conflict)
         on conflict (conversation_id) do update set active_at = greatest(conversations.active_at, excluded.active_at)
           where conversations.user_id = excluded.user_id
         returning *, xmax = 0 as created),
       owner as (
         insert into users (user_id, created_at) select user_id, created_at from claimed where created
         on conflict (user_id) do nothing),
       inserted as (
         insert into messages (${MESSAGE_COLUMNS})
         select s.message_id, c.conversation_id, c.user_id, s.role, s.text, s.created_at, s.metadata, s.reply_to, s.parent_id, s.status, s.progress_at, s.finish_reason
         from sent s cross join claimed c order by s.ord
         on conflict do nothing returning message_id)
       select (select user_id from existing) as owner, (select created from claimed) as made, (select count(*)::int from inserted) as created,
              coalesce((select json_agg(message_id) from conflict), '[]') as conflicts`,
    );
    return { ...row!, raced: row!.owner === null && row!.made === null && row!.conflicts.length === 0 };
  }

  async pageOwned(conversationId: string, userId: string, order: SortOrder, limit: number, after: MessagePosition | null): Promise<OwnedPage> {
    // The conversation and the page in one statement: no page is read for another user's conversation.
    const rows = await this.db.rows<MessageRow & { owner_id: string; owner_created_at: string; owner_head_id: string | null }>(
      sql`/* messages.page_owned */ select c.user_id as owner_id, c.created_at as owner_created_at, c.head_id as owner_head_id, m.*
       from conversations c
       left join lateral (
         select * from messages where conversation_id = c.conversation_id and c.user_id = ${userId} ${seek(order, after)}
         ${orderBy(order)} limit ${limit + 1}) m on true
       where c.conversation_id = ${conversationId}`,
    );
    const first = rows[0];
    if (!first) return { conversation: null, headId: null, page: { messages: [], next: null } };
    const conversation = toConversation({ conversation_id: conversationId, user_id: first.owner_id, created_at: first.owner_created_at });
    return { conversation, headId: first.owner_head_id, page: pageOf(rows.filter((r) => r.message_id !== null), limit) };
  }

  async pageBranch(conversationId: string, userId: string, query: BranchQuery): Promise<BranchPage> {
    const { order, limit, after } = query;
    const leaf: Sql = after ? sql`${after.leafId}` : query.leafId !== null ? sql`${query.leafId}` : sql`select head_id from owned`;
    // desc walks up from the leaf (or from the parent of the last message returned) only as far as the page.
    // asc, in a conversation that never forked (one chain, in insertion order), walks the chain down
    // from the last message returned as far as the page, up to the leaf; in a tree it walks the whole
    // path from the leaf and reads it from its first message.
    const seqOf = (id: unknown) => sql`(select seq from messages where message_id = (${id}) and conversation_id = ${conversationId})`;
    // The page before's last message, deleted since: the page goes on from the parent it had (BranchPosition.afterParentId).
    const parentKnown = after !== null && after.afterParentId !== undefined;
    /** `stored` while that message is stored; else, its parent known, `gone()`. */
    const resume = (stored: Sql, gone: () => Sql) =>
      parentKnown ? sql`(case when exists (select 1 from messages where message_id = ${after!.afterId} and conversation_id = ${conversationId}) then ${stored} else ${gone()} end)` : stored;
    // (pathUp finds the message it starts from only in this conversation.)
    const descFrom = after ? resume(sql`(select parent_id from messages where message_id = ${after.afterId} and conversation_id = ${conversationId})`, () => sql`${after.afterParentId ?? null}::text`) : leaf;
    /** Where an asc page goes on from in the path (a depth): after that message, else after its parent, or from `start` when it was the first. */
    const ascAfter = (of: (id: unknown) => Sql, start: Sql) => resume(of(after!.afterId), () => (after!.afterParentId === null ? start : of(after!.afterParentId)));
    const depthOf = (id: unknown) => sql`(select depth from path where message_id = ${id})`;
    // The chain is walked down from the page's first message, by parent (each message of a chain has
    // one child at most, inserted after it): its root, or the child of the last message returned (of
    // its parent, that message deleted since; a root, it being the first). Reading the chain as a
    // range of `seq` instead let a generic plan take the table's `seq` index and read every message
    // inserted before the conversation's.
    const chainStart = after
      ? sql`(m.parent_id = ${resume(sql`${after.afterId}::text`, () => sql`${after.afterParentId ?? null}::text`)}
             or ${parentKnown && after.afterParentId === null ? resume(sql`false`, () => sql`true`) : sql`false`} and coalesce(m.parent_id, '') = '')`
      : sql`coalesce(m.parent_id, '') = ''`;
    const walk =
      order === 'desc'
        ? pathUp('path', descFrom, conversationId, limit + 1)
        : sql`${pathUp('path', leaf, conversationId, null, sql`(select forked from owned)`)},
       chain(message_id, parent_id, depth, n) as (
         select m.message_id, m.parent_id, -m.seq, 1 from messages m
         where not (select forked from owned) and m.conversation_id = ${conversationId} and m.seq <= ${seqOf(leaf)} and ${chainStart}
         union all
         select c.message_id, c.parent_id, -c.seq, p.n + 1 from chain p join messages c on c.parent_id = p.message_id
         where p.n <= ${limit} and c.conversation_id = ${conversationId} and c.seq <= ${seqOf(leaf)})`;
    const chain = sql`select message_id, parent_id, depth from chain`;
    const window =
      order === 'desc'
        ? sql`select * from path order by depth limit ${limit + 1}`
        : after
          ? sql`(select * from path where depth < ${ascAfter(depthOf, sql`2147483647`)} order by depth desc limit ${limit + 1})
                union all ${chain}`
          : sql`(select * from path order by depth desc limit ${limit + 1}) union all ${chain}`;
    const [row] = await this.db.rows<{ owner: ConversationRow | null; leaf_found: boolean; page: (MessageRow & SiblingsRow)[] }>(
      sql`/* messages.page_branch */ with recursive owned as (
         select * from conversations where conversation_id = ${conversationId} and user_id = ${userId}),
       ${walk},
       page as (${window})
       select (select row_to_json(c) from conversations c where c.conversation_id = ${conversationId}) as owner,
              exists (select 1 from messages where message_id = (${leaf}) and conversation_id = ${conversationId}) as leaf_found,
              -- One JSON object a message, its row and its siblings side by side (json_agg of a record, not
              -- jsonb objects merged, which costs PostgreSQL a conversion each way for every field).
              coalesce((
                select json_agg(x order by x.depth ${order === 'desc' ? sql`asc` : sql`desc`}) from (
                  select m.*, s.*, p.depth
                  -- Each message of the page by its key (offset 0 keeps the planner from a join that reads the whole table).
                  from page p cross join lateral (select * from messages where message_id = p.message_id offset 0) m
                  cross join lateral (${siblingsOf(sql`m`, sql`(select forked from owned)`)}) s
                  where exists (select 1 from owned)) x), '[]') as page`,
    );
    const owner = row!.owner;
    if (!owner || owner.user_id !== userId) {
      return { conversation: owner ? toConversation(owner) : null, headId: null, leafFound: false, messages: [], next: null };
    }
    const rows = row!.page;
    const shown = rows.slice(0, limit);
    const leafId = after?.leafId ?? query.leafId ?? owner.head_id;
    const last = shown.at(-1);
    return {
      conversation: toConversation(owner),
      headId: owner.head_id,
      leafFound: query.leafId === null || after !== null || row!.leaf_found,
      messages: shown.map((r) => ({ message: toMessage(r), siblings: siblingsFrom(r) })),
      next: rows.length > limit && last && leafId !== null ? { leafId, afterId: last.message_id, afterParentId: last.parent_id } : null,
    };
  }

  async switchBranch(conversationId: string, userId: string, messageId: string): Promise<{ conversation: Conversation | null; found: boolean; headId: string | null }> {
    const [row] = await this.db.rows<{ conversation: ConversationRow | null; head_id: string | null; found: boolean }>(
      sql`/* messages.switch_branch */ with recursive ${descendantsOf('subtree', sql`${messageId}`, conversationId, true)},
       newest as (select message_id from subtree order by created_at desc, seq desc limit 1),
       moved as (
         update conversations set head_id = (select message_id from newest)
         where conversation_id = ${conversationId} and user_id = ${userId} and exists (select 1 from newest)
         returning head_id)
       select (select row_to_json(c) from conversations c where c.conversation_id = ${conversationId}) as conversation,
              (select head_id from moved) as head_id,
              exists (select 1 from moved) as found`,
    );
    const conversation = row!.conversation ? toConversation(row!.conversation) : null;
    return { conversation, found: row!.found, headId: row!.head_id };
  }

  async count(conversationId: string): Promise<number> {
    const [row] = await this.db.rows<{ message_count: number }>(sql`select message_count from conversations where conversation_id = ${conversationId}`);
    return row?.message_count ?? 0;
  }

  async deleteOwned(conversationId: string, userId: string, messageIds: string[] | null, descendants = false): Promise<{ conversation: Conversation | null; deleted: number }> {
    // A delete that waited for the conversation's lock while another changed the tree (a delete of a
    // neighbour, a write) read the tree as it was before: it changes nothing, and runs again.
    const { conversation, deleted } = await untilSettled(() => this.deleteOwnedOnce(conversationId, userId, messageIds, descendants), this.db.transactional, 5);
    return { conversation, deleted };
  }

  private async deleteOwnedOnce(conversationId: string, userId: string, messageIds: string[] | null, descendants: boolean): Promise<{ conversation: Conversation | null; deleted: number; raced: boolean }> {
    const listed =
      messageIds === null
        ? sql`select message_id from messages where conversation_id = (select conversation_id from unchanged)`
        : // The ids by key, then the conversation's (offset 0: a plan for short conversations would otherwise read this one whole).
          sql`select message_id from (select message_id, conversation_id from messages where message_id = any(${textArray(messageIds)}) offset 0) m
              where conversation_id = (select conversation_id from unchanged)`;
    const doomed = descendants && messageIds !== null ? sql`${descendantsOf('doomed', listed, conversationId)}` : sql`doomed(message_id) as (${listed})`;
    // The conversation's row first, as replies.begin locks it before it writes messages (see
    // postgres-reply-repository.ts): the message_count trigger would otherwise lock it after the delete.
    // Each deleted message's nearest surviving ancestor (`lifted`) takes its children, and the head: walked up
    // only from the deleted messages that leave children or the head behind (a walk from each would cost the
    // square of a deleted chain's length).
    // Nothing is done when the conversation changed while this statement waited for its lock (UNCHANGED).
    const [row] = await this.db.rows<{ conversation: ConversationRow | null; deleted: string; raced: boolean }>(
      sql`/* messages.delete_owned */ with recursive locked as materialized (
         select conversation_id, head_id, xmin as version from conversations where conversation_id = ${conversationId} and user_id = ${userId} for no key update),
       unchanged as materialized (${UNCHANGED}),
       ${doomed},
       -- Only a doomed message that leaves something behind is walked up from: one with a surviving child, or the head.
       -- (Each doomed message's children by key: offset 0 keeps the planner from hashing every message's parent.)
       orphaning(message_id) as (
         select distinct d.message_id from doomed d
         where exists (
             select 1 from messages c where c.parent_id = d.message_id and c.message_id not in (select message_id from doomed) offset 0)
           or d.message_id = (select head_id from locked)),
       lifting(message_id, target) as (
         select m.message_id, m.parent_id from orphaning o join messages m on m.message_id = o.message_id
         union all
         select l.message_id, m.parent_id from lifting l join messages m on m.message_id = l.target
         where l.target in (select message_id from doomed)),
       lifted as (select message_id, target from lifting where target is null or target not in (select message_id from doomed)),
       -- By key (= any of an array): joined, a plan expecting many doomed messages read every message.
       spliced as (
         update messages m set parent_id = (select l.target from lifted l where l.message_id = m.parent_id limit 1)
         where m.parent_id = any(array(select message_id from lifted)) and m.message_id not in (select message_id from doomed) returning 1),
       deleted as (delete from messages m where m.message_id = any(array(select message_id from doomed)) returning 1),
       moved as (
         update conversations c set
           head_id = case when c.head_id in (select message_id from doomed) then (select target from lifted where message_id = c.head_id) else c.head_id end,
           -- Children moved up may meet siblings: the conversation is no longer known to be one chain.
           forked = c.forked or exists (select 1 from spliced)
         where c.conversation_id = (select conversation_id from unchanged)
           and (c.head_id in (select message_id from doomed) or exists (select 1 from spliced)))
       select (select row_to_json(c) from conversations c where c.conversation_id = ${conversationId}) as conversation,
              (select count(*) from deleted) + 0 * (select count(*) from spliced) as deleted,
              exists (select 1 from locked) and not exists (select 1 from unchanged) as raced`,
    );
    return { conversation: row!.conversation ? toConversation(row!.conversation) : null, deleted: Number(row!.deleted), raced: row!.raced };
  }
}

/**
 * A recursive CTE `name(message_id)` (with `positioned`, `name(message_id, created_at, seq)`): the
 * messages `roots` yields and all their descendants
 * (children through `messages_parent`, by their parent's id alone: Migration20261203000000). Each
 * step looks up the children of each message found in the step before (a lateral subquery the
 * planner keeps apart, `offset 0`), whatever the planner believes of the conversation's size:
 * joined whole, or looked up by conversation too, a conversation thought small (one the table's
 * statistics do not know yet, say) was read whole at every step, the square of a deep subtree's size.
 */
function descendantsOf(name: string, roots: Sql, conversationId: string, positioned = false): Sql {
  // Each message's place in the timeline is read in the same visit: a second read by key cost a long subtree twice the time.
  const columns = raw(positioned ? 'message_id, created_at, seq' : 'message_id');
  return sql`${raw(name)}(${columns}) as (
         select ${columns} from messages m where m.message_id in (${roots}) and m.conversation_id = ${conversationId}
         union
         select c.* from ${raw(name)} d
         cross join lateral (
           select ${columns} from messages c where c.parent_id = d.message_id offset 0) c)`;
}

/** A message's siblings (the messages that share its parent, itself included) as one row: count, its index, its neighbours. */
function siblingsOf(m: Sql, forked: Sql): Sql {
  const same = sql`s.conversation_id = ${m}.conversation_id and coalesce(s.parent_id, '') = coalesce(${m}.parent_id, '')`;
  // A conversation that never forked (conversations.forked, kept by the insert trigger and by
  // deletes that splice) is one chain: each message is its parent's only child, the only sibling
  // of its own, and nothing is read for it.
  return sql`select count(*) as sibling_count,
         count(*) filter (where (s.created_at, s.seq) < (${m}.created_at, ${m}.seq)) as sibling_index,
         (select s.message_id from messages s where ${same} and (s.created_at, s.seq) < (${m}.created_at, ${m}.seq) order by s.created_at desc, s.seq desc limit 1) as previous_id,
         (select s.message_id from messages s where ${same} and (s.created_at, s.seq) > (${m}.created_at, ${m}.seq) order by s.created_at, s.seq limit 1) as next_id
       from messages s where ${forked} and ${same}
       having ${forked}
       union all
       select 1::bigint, 0::bigint, null::varchar, null::varchar where not ${forked}`;
}

function siblingsFrom(row: SiblingsRow): Siblings {
  return { count: Number(row.sibling_count), index: Number(row.sibling_index), previousId: row.previous_id, nextId: row.next_id };
}

/** Keyset pagination on the (conversation_id, created_at, seq) index, in either direction. */
function seek(order: SortOrder, after: MessagePosition | null): Sql {
  if (!after) return empty;
  return order === 'asc' ? sql`and (created_at, seq) > (${after.createdAt}, ${after.seq})` : sql`and (created_at, seq) < (${after.createdAt}, ${after.seq})`;
}

const orderBy = (order: SortOrder): Sql => (order === 'asc' ? sql`order by created_at asc, seq asc` : sql`order by created_at desc, seq desc`);

function pageOf(rows: MessageRow[], limit: number): MessagePage {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    messages: page.map(toMessage),
    next: rows.length > limit && last ? { createdAt: toDate(last.created_at), seq: Number(last.seq) } : null,
  };
}

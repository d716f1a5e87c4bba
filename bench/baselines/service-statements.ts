/**
 * POST /v1/chat runs the service's own two statements (replies.begin and replies.finish in
 * src/adapters/persistence/postgres/postgres-reply-repository.ts), copied as SQL with each value
 * bound once. Begin: lock the conversation, claim it (creating user and conversation when new),
 * store the user's message and open the reply in progress (the insert trigger moves the head and
 * the count), and read the finished messages of the branch above the question (the path from the
 * head up; the statement's snapshot does not see its own inserts), the new messages dated no
 * earlier than the one they follow. Finish: the reply completed, the conversation's last activity
 * moved (and its title set on the first turn). They are the texts the service sends for a chat turn
 * (no parent named, no roots, both messages dated), as PostgreSQL logs them: when the service's
 * statements change, these follow (test/bench/service-statements.test.ts compares them).
 *
 * Parameters of CHAT_FINISH: $1 the reply's id, $2 its text, $3 its metadata, $4 its finish
 * reason, $5 the time, $6 a title, $7 its source. Those of the writes are given below.
 */
/**
 * The parts both writes share (rows.ts: `treeInput`, `claimAndInsert`, `RACED`), with the same
 * parameters: $1 conversation, $2 the messages as JSON, $3 roots (none), $4 a parent named (none),
 * $5 user, $6 the time, $7 temporary, $8 which messages are dated.
 */
const TREE_INPUT = `locked as materialized (
    select conversation_id, head_id, active_at, xmin as version from conversations where conversation_id = $1 for no key update),
  unchanged as materialized (select conversation_id from locked),
  sent as (select * from rows from (json_to_recordset($2::json) as (
      message_id text, conversation_id text, user_id text, role text, text text, created_at timestamptz,
      metadata jsonb, reply_to text, parent_id text, status text, progress_at timestamptz, finish_reason text))
    with ordinality as input(message_id, conversation_id, user_id, role, text, created_at, metadata, reply_to, parent_id, status, progress_at, finish_reason, ord)),
  input as materialized (
    select s.*, case
        when s.parent_id is not null then s.parent_id
        when s.message_id = any($3::text[]) then null
        when s.ord = 1 then coalesce(
          (select m.message_id from messages m where m.message_id = $4 and m.conversation_id = $1),
          (select head_id from locked))
        else (select e.message_id from sent e where e.ord = s.ord - 1)
      end as parent
    from sent s),
  taken as (select m.* from messages m where m.message_id = any(array(select message_id from input))),
  unknown_parent as (
    select s.message_id from sent s
    where s.parent_id is not null
      and (select m.conversation_id from messages m where m.message_id = s.parent_id) is distinct from $1
      and not exists (select 1 from sent e where e.message_id = s.parent_id and e.ord < s.ord)),
  followed as materialized (
    select greatest(
      (select max((select m.created_at from messages m where m.message_id = i.parent and m.conversation_id = $1))
       from input i where i.ord = 1 or i.parent_id is not null),
      (select l.active_at from locked l
       where l.head_id in (select parent from input) and not exists (select 1 from messages m where m.message_id = l.head_id))) as at)`;

const CLAIM_AND_INSERT = `claimed as (
    insert into conversations (conversation_id, user_id, created_at, active_at, temporary)
    select $1, $5, $6, greatest($6::timestamptz, greatest($6::timestamptz, (select at from followed))), $7
    from (select count(*) from locked) as locked_first
    where not exists (select 1 from taken) and not exists (select 1 from unknown_parent)
    on conflict (conversation_id) do update set active_at = greatest(conversations.active_at, excluded.active_at)
      where conversations.user_id = excluded.user_id
    returning *, xmax = 0 as created),
  owner as (
    insert into users (user_id, created_at) select user_id, created_at from claimed where created
    on conflict (user_id) do nothing),
  inserted as (
    insert into messages (message_id, conversation_id, user_id, role, text, created_at, metadata, reply_to, parent_id, status, progress_at, finish_reason)
    select i.message_id, c.conversation_id, c.user_id, i.role, i.text,
      case when ($8::boolean[])[i.ord::int] then greatest(i.created_at, (select at from followed)) else i.created_at end,
      i.metadata, i.reply_to, i.parent, i.status, i.progress_at, i.finish_reason
    from input i cross join claimed c where c.created or exists (select 1 from unchanged) order by i.ord
    on conflict (reply_to) where status = 'in_progress' do nothing
    returning message_id, parent_id, created_at)`;

const RACED = `((not exists (select 1 from locked) and not exists (select 1 from claimed where created)
      and not exists (select 1 from taken) and not exists (select 1 from unknown_parent))
     or (exists (select 1 from locked) and not exists (select 1 from unchanged)))`;

/** replies.begin for a turn's two messages: the shared parameters, then $9 the question's id, $10 the path's depth bound, $11 history messages. */
export const CHAT_BEGIN = `with recursive ${TREE_INPUT},
  taken_reply as (select * from messages where reply_to = $9 order by created_at desc, seq desc limit 1),
  above(message_id, parent_id, depth) as (
    select m.message_id, m.parent_id, 1 from messages m where m.message_id = (select case when exists (select 1 from taken where message_id = $9)
      then (select parent_id from taken where message_id = $9) else (select parent from input where ord = 1) end) and m.conversation_id = $1 and true
    union all
    select m.message_id, m.parent_id, p.depth + 1 from above p
    cross join lateral (select message_id, parent_id from messages where message_id = p.parent_id offset 0) m where p.depth < $10),
  history as (
    select m.*, p.depth from above p cross join lateral (select * from messages where message_id = p.message_id offset 0) m
    where m.status = 'completed' order by p.depth limit $11),
  ${CLAIM_AND_INSERT}
  select (select row_to_json(c) from claimed c) as claimed,
    (select row_to_json(c) from conversations c where c.conversation_id = $1) as existing,
    (select row_to_json(t) from taken t where t.message_id = $9) as taken,
    (select row_to_json(r) from taken_reply r) as taken_reply,
    coalesce((select json_agg(h order by h.depth) from history h), '[]') as history,
    coalesce((select json_agg(json_build_object('message_id', message_id, 'parent_id', parent_id, 'created_at', created_at)) from inserted), '[]') as inserted,
    exists (select 1 from unknown_parent) as unknown_parent,
    ${RACED} as raced`;

export const CHAT_FINISH = `with current as (select * from messages where message_id = $1),
  locked as materialized (select conversation_id, head_id from conversations where conversation_id = (select conversation_id from current) for no key update),
  finished as (
    update messages set text = $2, draft = null, metadata = $3::jsonb, status = 'completed', progress_at = null, finish_reason = $4
    where message_id = $1 and status = 'in_progress' and $2 <> '' and exists (select 1 from locked) returning *),
  removed as (
    delete from messages where message_id = $1 and status = 'in_progress' and $2 = '' and exists (select 1 from locked)
    returning message_id, parent_id),
  ended as (
    insert into response_endings (response_id, conversation_id, user_id, reply_to, created_at, finish_reason, metadata, record)
    select m.message_id, m.conversation_id, m.user_id, m.reply_to, m.created_at, coalesce(e.finish_reason, 'cancelled'), e.metadata,
      case when r.response_id is null then null else to_jsonb(r) end
    from (select $1::text as message_id, $4::text as finish_reason, $3::jsonb as metadata
           where exists (select 1 from removed)) e join messages m on m.message_id = e.message_id left join responses r on r.response_id = e.message_id
    on conflict (response_id) do nothing),
  touched as (
    update conversations c set
      active_at = case when exists (select 1 from finished) then greatest(c.active_at, $5) else c.active_at end,
      head_id = case when c.head_id in (select message_id from removed) then (select parent_id from removed) else c.head_id end,
      title = case when c.title_source is null and exists (select 1 from finished) and $6::text is not null then $6::text else c.title end,
      title_source = case when c.title_source is null and exists (select 1 from finished) and $6::text is not null then $7::text else c.title_source end,
      titled_by = case when c.title_source is null and exists (select 1 from finished) and $6::text is not null then $1::text else c.titled_by end
    where c.conversation_id = (select conversation_id from current) and (exists (select 1 from finished) or exists (select 1 from removed))
    returning c.titled_by)
  select (select row_to_json(f) from finished f) as finished,
    (select row_to_json(c) from current c) as current,
    (select count(*) from removed) as removed,
    exists (select 1 from touched where titled_by = $1) as named`;

/**
 * saveMessage's statement (`messages.append` in postgres-message-repository.ts) for one message
 * sent without a parent or a time, as the bench sends it: it follows the conversation's head and
 * is dated no earlier than it. The shared parameters only.
 */
export const SAVE_MESSAGE = `with ${TREE_INPUT},
  ${CLAIM_AND_INSERT}
  select (select row_to_json(c) from claimed c) as claimed,
    (select row_to_json(c) from conversations c where c.conversation_id = $1) as existing,
    coalesce((select json_agg(t) from taken t), '[]') as taken,
    coalesce((select json_agg(json_build_object('message_id', message_id, 'parent_id', parent_id, 'created_at', created_at)) from inserted), '[]') as inserted,
    coalesce((select json_agg(message_id) from unknown_parent), '[]') as unknown_parents,
    ${RACED} as raced`;

import { Migration } from '@mikro-orm/migrations';
import { inBatches } from './batches.js';

const countTrigger = (onInsert: string) => `create or replace function "count_conversation_messages"() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          ${onInsert}
        else
          update "conversations" c set "message_count" = c."message_count" - n.count
            from (select "conversation_id", count(*) as count from old_rows group by 1) n
            where c."conversation_id" = n."conversation_id";
        end if;
        return null;
      end $$`;

// A conversation stays one chain in insertion order (`forked` false) while every message has at
// most one child and follows a message inserted before it: a new row with a sibling, or with a
// child already stored (inserted before its parent), ends that. Two index probes a new row
// (messages_children), one aggregate a statement.
const HEAD_FOLLOWS_INSERTS = countTrigger(`update "conversations" c set "message_count" = c."message_count" + n.count, "head_id" = n.last_id,
              "forked" = c."forked" or n.forked
            from (select r."conversation_id", count(*) as count, (array_agg(r."message_id" order by r."seq" desc))[1] as last_id,
                         bool_or(exists (select 1 from "messages" s
                                         where s."conversation_id" = r."conversation_id" and coalesce(s."parent_id", '') = coalesce(r."parent_id", '')
                                           and s."message_id" <> r."message_id")
                                 or exists (select 1 from "messages" s
                                            where s."conversation_id" = r."conversation_id" and coalesce(s."parent_id", '') = r."message_id"
                                              and s."seq" < r."seq")) as forked
                  from new_rows r group by 1) n
            where c."conversation_id" = n."conversation_id";`);

const COUNTS_ONLY = countTrigger(`update "conversations" c set "message_count" = c."message_count" + n.count
            from (select "conversation_id", count(*) as count from new_rows group by 1) n
            where c."conversation_id" = n."conversation_id";`);

/** Conversations linked per batch: their messages are read and written together. */
const BATCH_CONVERSATIONS = 200;

/**
 * Conversations as trees: every message's `parent_id` (the message it follows; null for a first
 * one) and each conversation's `head_id` (the last message of its active branch). Existing
 * conversations become single branches — each message's parent is the one before it — in
 * batches of conversations, each committed by itself (writers are held out of a batch's
 * conversations only while it runs). A batch takes conversations whose head is not set yet, so a
 * stopped run goes on where it was. A user message may now have several replies (one per branch),
 * but at most one in progress.
 */
export class Migration20261126000000 extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    await this.execute(`alter table "messages" add column if not exists "parent_id" varchar(128) collate "C" null`);
    await this.execute(`alter table "conversations" add column if not exists "head_id" varchar(128) collate "C" null`);
    // False while the conversation is one chain (every message has at most one child): then its
    // branch is its insertion order. Existing conversations become single chains below.
    await this.execute(`alter table "conversations" add column if not exists "forked" boolean not null default false`);
    await this.execute(`create index concurrently if not exists "messages_chain" on "messages" ("conversation_id", "seq")`);
    // Children of a message (siblings of one another) in creation order; a first message's parent is ''.
    await this.execute(`create index concurrently if not exists "messages_children"
      on "messages" ("conversation_id", (coalesce("parent_id", '')), "created_at", "seq")`);
    await this.execute(`create index concurrently if not exists "messages_replies" on "messages" ("reply_to", "created_at", "seq") where "reply_to" is not null`);
    await this.execute(`create unique index concurrently if not exists "messages_one_reply_in_progress" on "messages" ("reply_to") where "status" = 'in_progress'`);
    await this.execute(`alter table "messages" drop constraint if exists "messages_reply_to_unique"`);
    // The last message a statement inserts into a conversation becomes its head, whatever wrote it:
    // the trigger that keeps the counts knows which messages a statement actually inserted.
    await this.execute(HEAD_FOLLOWS_INSERTS);
    await inBatches(
      this,
      `with batch as (
         select conversation_id from conversations where head_id is null and message_count > 0
         order by conversation_id limit ${BATCH_CONVERSATIONS} for update skip locked),
       ordered as (
         select m.message_id, m.conversation_id, m.seq,
                lag(m.message_id) over (partition by m.conversation_id order by m.created_at, m.seq) as parent_id,
                lag(m.seq) over (partition by m.conversation_id order by m.created_at, m.seq) as parent_seq
         from messages m where m.conversation_id in (select conversation_id from batch)),
       linked as (
         update messages m set parent_id = o.parent_id from ordered o
         where m.message_id = o.message_id and o.parent_id is not null returning 1),
       heads as (
         -- The chain follows the conversation order (created_at, then insertion); where that is not
         -- the insertion order, the conversation is not read as one chain in insertion order.
         update conversations c set head_id = h.message_id,
           forked = exists (select 1 from ordered o where o.conversation_id = c.conversation_id and o.parent_seq > o.seq)
         from (select distinct on (conversation_id) conversation_id, message_id from messages
               where conversation_id in (select conversation_id from batch)
               order by conversation_id, created_at desc, seq desc) h
         where c.conversation_id = h.conversation_id returning 1)
       select (select count(*) from heads) as changed`,
    );
  }

  override async down(): Promise<void> {
    await this.execute(COUNTS_ONLY);
    await this.execute(`drop index if exists "messages_one_reply_in_progress"`);
    await this.execute(`drop index if exists "messages_replies"`);
    await this.execute(`drop index if exists "messages_children"`);
    await this.execute(`drop index if exists "messages_chain"`);
    await this.execute(`alter table "conversations" drop column if exists "head_id", drop column if exists "forked"`);
    await this.execute(`alter table "messages" drop column if exists "parent_id"`);
  }
}

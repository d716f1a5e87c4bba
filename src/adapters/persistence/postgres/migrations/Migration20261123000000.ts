import { Migration } from '@mikro-orm/migrations';

/**
 * Counts kept on the conversation row (maintained by the database itself, for every statement
 * that inserts or deletes messages, cascades included), and replies that grow while they are
 * written: a message's `status` and the time its producer last showed it was alive.
 */
export class Migration20261123000000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "conversations" add column "message_count" integer not null default 0`);
    this.addSql(`update "conversations" c set "message_count" = n.count
      from (select "conversation_id", count(*) as count from "messages" group by 1) n
      where c."conversation_id" = n."conversation_id"`);
    this.addSql(`create function "count_conversation_messages"() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          update "conversations" c set "message_count" = c."message_count" + n.count
            from (select "conversation_id", count(*) as count from new_rows group by 1) n
            where c."conversation_id" = n."conversation_id";
        else
          update "conversations" c set "message_count" = c."message_count" - n.count
            from (select "conversation_id", count(*) as count from old_rows group by 1) n
            where c."conversation_id" = n."conversation_id";
        end if;
        return null;
      end $$`);
    this.addSql(`create trigger "messages_counted_on_insert" after insert on "messages"
      referencing new table as new_rows for each statement execute function "count_conversation_messages"()`);
    this.addSql(`create trigger "messages_counted_on_delete" after delete on "messages"
      referencing old table as old_rows for each statement execute function "count_conversation_messages"()`);
    this.addSql(`alter table "messages"
      add column "status" text not null default 'completed' check ("status" in ('in_progress', 'completed')),
      add column "alive_at" timestamptz(3) null`);
    this.addSql(`create index "messages_in_progress" on "messages" ("conversation_id") where "status" = 'in_progress'`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists "messages_in_progress"');
    this.addSql('alter table "messages" drop column if exists "alive_at", drop column if exists "status"');
    this.addSql('drop trigger if exists "messages_counted_on_delete" on "messages"');
    this.addSql('drop trigger if exists "messages_counted_on_insert" on "messages"');
    this.addSql('drop function if exists "count_conversation_messages"()');
    this.addSql('alter table "conversations" drop column if exists "message_count"');
  }
}

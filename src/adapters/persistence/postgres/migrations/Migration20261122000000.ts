import { Migration } from '@mikro-orm/migrations';

/** The first schema: users, conversations, messages (keyset-paginated timeline), sessions. */
export class Migration20261122000000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "users" (
      "user_id" varchar(128) collate "C" not null primary key,
      "created_at" timestamptz(3) not null)`);
    this.addSql(`create table "conversations" (
      "conversation_id" varchar(128) collate "C" not null primary key,
      "user_id" varchar(128) collate "C" not null,
      "created_at" timestamptz(3) not null,
      "active_at" timestamptz(3) not null)`);
    this.addSql(`alter table "conversations" add constraint "conversations_user_id_foreign"
      foreign key ("user_id") references "users" ("user_id") on update cascade on delete cascade`);
    this.addSql(`create index "conversations_by_user_activity" on "conversations" ("user_id", "active_at", "conversation_id")`);
    this.addSql(`create table "messages" (
      "message_id" varchar(128) collate "C" not null primary key,
      "seq" bigserial,
      "conversation_id" varchar(128) collate "C" not null,
      "user_id" varchar(128) collate "C" not null,
      "role" text check ("role" in ('user', 'assistant', 'system')) not null,
      "text" text not null,
      "created_at" timestamptz(3) not null,
      "metadata" jsonb not null,
      "reply_to" varchar(128) collate "C" null)`);
    this.addSql(`alter table "messages" add constraint "messages_conversation_id_foreign"
      foreign key ("conversation_id") references "conversations" ("conversation_id") on update cascade on delete cascade`);
    this.addSql(`alter table "messages" add constraint "messages_seq_unique" unique ("seq")`);
    this.addSql(`alter table "messages" add constraint "messages_reply_to_unique" unique ("reply_to")`);
    this.addSql(`create index "messages_timeline" on "messages" ("conversation_id", "created_at", "seq")`);
    this.addSql(`create table "sessions" (
      "session_id" varchar(128) collate "C" not null primary key,
      "conversation_id" varchar(128) collate "C" not null,
      "user_id" varchar(128) collate "C" not null,
      "title" text null,
      "started_at" timestamptz(3) null,
      "ended_at" timestamptz(3) null,
      "metadata" jsonb not null,
      "created_at" timestamptz(3) not null,
      "updated_at" timestamptz(3) not null)`);
    this.addSql(`alter table "sessions" add constraint "sessions_conversation_id_foreign"
      foreign key ("conversation_id") references "conversations" ("conversation_id") on update cascade on delete cascade`);
    this.addSql(`create index "sessions_by_conversation" on "sessions" ("conversation_id", "updated_at")`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "sessions" cascade');
    this.addSql('drop table if exists "messages" cascade');
    this.addSql('drop table if exists "conversations" cascade');
    this.addSql('drop table if exists "users" cascade');
  }
}

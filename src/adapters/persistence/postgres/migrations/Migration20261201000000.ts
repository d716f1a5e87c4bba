import { Migration } from '@mikro-orm/migrations';

/**
 * Replies that ended before their first piece. Such a reply is removed (no message has empty text
 * once finished), which took its `responses` row along, so a background response that failed or
 * was cancelled at once was then not found, and a follower on another instance could not tell a
 * failure from a stop. Its ending is kept here instead: why it ended (its error), the question it
 * answered and, for a response, its request's record; with its conversation (deleted with it, so
 * an erased user leaves nothing behind). A new table: nothing existing is rewritten.
 */
export class Migration20261201000000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "response_endings" (
      "response_id" varchar(128) collate "C" not null primary key,
      "conversation_id" varchar(128) collate "C" not null
        references "conversations" ("conversation_id") on update cascade on delete cascade,
      "user_id" varchar(128) collate "C" not null,
      "reply_to" varchar(128) collate "C" null,
      "created_at" timestamptz not null,
      "finish_reason" text not null,
      "metadata" jsonb not null,
      "record" jsonb null)`);
    this.addSql(`create index if not exists "response_endings_conversation" on "response_endings" ("conversation_id")`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "response_endings"');
  }
}

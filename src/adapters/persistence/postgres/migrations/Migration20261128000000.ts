import { Migration } from '@mikro-orm/migrations';

/**
 * OpenAI's Responses and Conversations APIs: what they keep beyond the native rows. A response is
 * its reply (the same id): its request's instructions, model, metadata, input items and the rest
 * go with the reply's row (deleted with it, renamed with it). A conversation's OpenAI metadata goes
 * with the conversation. Both tables are new, so nothing existing is rewritten.
 */
export class Migration20261128000000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "responses" (
      "response_id" varchar(128) collate "C" not null primary key
        references "messages" ("message_id") on update cascade on delete cascade,
      "model" text not null,
      "instructions" text null,
      "previous_response_id" varchar(128) collate "C" null,
      "background" boolean not null default false,
      "metadata" jsonb not null default '{}',
      "input_ids" text[] not null default '{}',
      "max_output_tokens" integer null,
      "temperature" double precision null,
      "input_tokens" integer not null default 0)`);
    this.addSql(`create table if not exists "conversation_metadata" (
      "conversation_id" varchar(128) collate "C" not null primary key
        references "conversations" ("conversation_id") on update cascade on delete cascade,
      "metadata" jsonb not null)`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "conversation_metadata"');
    this.addSql('drop table if exists "responses"');
  }
}

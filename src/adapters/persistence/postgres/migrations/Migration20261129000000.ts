import { Migration } from '@mikro-orm/migrations';

/**
 * Usage per user and UTC day (requests, the model's tokens, characters of speech), added to by
 * every instance in batches; and the requests granted per user and minute under
 * LIMIT_REQUESTS_PER_MINUTE, which instances claim in blocks so that together they never grant
 * more than the limit. No foreign key to users: speech is counted for users who never chatted,
 * and under no user at all (an empty id).
 */
export class Migration20261129000000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "usage" (
      "user_id" varchar(128) collate "C" not null,
      "day" date not null,
      "requests" bigint not null default 0,
      "input_tokens" bigint not null default 0,
      "output_tokens" bigint not null default 0,
      "speech_characters" bigint not null default 0,
      primary key ("user_id", "day"))`);
    this.addSql(`create table "usage_request_windows" (
      "user_id" varchar(128) collate "C" not null,
      "window_start" timestamptz(3) not null,
      "granted" integer not null,
      "last_grant" integer not null,
      primary key ("user_id", "window_start"))`);
    this.addSql(`create index "usage_request_windows_by_start" on "usage_request_windows" ("window_start")`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "usage_request_windows"');
    this.addSql('drop table if exists "usage"');
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * Conversations people manage: a stored title and who made it (`user`, `generated`,
 * `first_message`), pinned, archived, temporary. Listing reads pinned first, then by last
 * activity; the sweeps of temporary and retained conversations read by last activity.
 */
export class Migration20261130000000 extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    await this.execute(`alter table "conversations"
      add column if not exists "title" text null,
      add column if not exists "title_source" text null check ("title_source" in ('user', 'generated', 'first_message')),
      add column if not exists "pinned" boolean not null default false,
      add column if not exists "archived" boolean not null default false,
      add column if not exists "temporary" boolean not null default false`);
    await this.execute(`create index concurrently if not exists "conversations_listed"
      on "conversations" ("user_id", "archived", "pinned", "active_at", "conversation_id") where not "temporary"`);
    await this.execute(`create index concurrently if not exists "conversations_by_activity" on "conversations" ("active_at")`);
  }

  override async down(): Promise<void> {
    await this.execute(`drop index if exists "conversations_by_activity"`);
    await this.execute(`drop index if exists "conversations_listed"`);
    await this.execute(`alter table "conversations" drop column if exists "temporary", drop column if exists "archived",
      drop column if exists "pinned", drop column if exists "title_source", drop column if exists "title"`);
  }
}

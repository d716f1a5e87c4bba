import { Migration } from '@mikro-orm/migrations';

/**
 * A reply's text while it is written goes to `draft`, not `text` (postgres-reply-repository.ts,
 * `advance`): `text` is a column of the search indexes (their expressions), so rewriting it made
 * every progress write a new entry in each of the table's nine b-tree indexes as well. A
 * write that changes no indexed column can stay on its row's page (a heap-only tuple, HOT) and
 * touches no index, when the page has room for it: the table's pages are now filled to 90 % by
 * inserts (existing pages keep what they hold), leaving the rest to the replies written on them.
 * Two instances streaming 1,000 replies: under 1 % of the progress writes were HOT before, 76 to
 * 78 % after, and the WAL written fell from 3.0-3.6 MB/s to 1.3-1.6 (docs/operations.md).
 *
 * While a reply is in progress its text so far is `coalesce(draft, text)` (a reply begun before
 * this migration has its text in `text`); a finished message has no draft.
 */
export class Migration20261204000000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "messages" add column if not exists "draft" text`);
    this.addSql(`alter table "messages" set (fillfactor = 90)`);
  }

  override async down(): Promise<void> {
    this.addSql(`update "messages" set "text" = "draft", "draft" = null where "draft" is not null`);
    this.addSql(`alter table "messages" reset (fillfactor)`);
    this.addSql(`alter table "messages" drop column if exists "draft"`);
  }
}

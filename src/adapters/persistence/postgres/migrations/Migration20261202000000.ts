import { Migration } from '@mikro-orm/migrations';

/**
 * Which reply named a conversation (its first finished one, ReplyRepository.finishAndName), so that a
 * stream of that reply followed on another instance ends with the title event too, as the
 * producing instance's stream does. A nullable column without a default: no row is rewritten.
 */
export class Migration20261202000000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "conversations" add column if not exists "titled_by" varchar(128) collate "C" null`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "conversations" drop column if exists "titled_by"`);
  }
}

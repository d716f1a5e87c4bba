import { Migration } from '@mikro-orm/migrations';
import { BATCH_ROWS, inBatches } from './batches.js';

/**
 * A reply's finish reason in a column of its own (it travelled in `metadata.finish_reason`,
 * mixed with the client's metadata), and `alive_at` named for what it holds: when the reply's
 * producer last made progress or showed it is alive. The data moves in batches, outside one
 * long transaction; a batch skips replies already moved, so a stopped run can simply be re-run.
 */
export class Migration20261125000000 extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    await this.execute(`alter table "messages" add column if not exists "finish_reason" text null`);
    await this.execute(`do $$ begin
        if exists (select 1 from information_schema.columns where table_name = 'messages' and column_name = 'alive_at') then
          alter table "messages" rename column "alive_at" to "progress_at";
        end if;
      end $$`);
    await inBatches(
      this,
      `with batch as (
         select message_id from messages
         where reply_to is not null and finish_reason is null and metadata ? 'finish_reason'
         limit ${BATCH_ROWS} for update skip locked),
       moved as (
         update messages m set finish_reason = m.metadata->>'finish_reason', metadata = m.metadata - 'finish_reason'
         from batch b where m.message_id = b.message_id returning 1)
       select count(*) as changed from moved`,
    );
  }

  override async down(): Promise<void> {
    await inBatches(
      this,
      `with batch as (
         select message_id from messages where finish_reason is not null and not metadata ? 'finish_reason'
         limit ${BATCH_ROWS} for update skip locked),
       moved as (
         update messages m set metadata = m.metadata || jsonb_build_object('finish_reason', m.finish_reason)
         from batch b where m.message_id = b.message_id returning 1)
       select count(*) as changed from moved`,
    );
    await this.execute(`alter table "messages" rename column "progress_at" to "alive_at"`);
    await this.execute(`alter table "messages" drop column "finish_reason"`);
  }
}

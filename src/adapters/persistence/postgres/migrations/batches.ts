import type { Migration } from '@mikro-orm/migrations';

/** Rows changed per statement by a batched data migration: short transactions, writers never held out for long. */
export const BATCH_ROWS = 10_000;

/**
 * Runs `statement` (one batch: it must return one row with a `changed` count) until a batch
 * changes nothing. Each batch commits by itself, so the migration that calls this must not be
 * transactional (`isTransactional(): false`); a migration stopped half-way is run again whole
 * at the next start, and every batch must therefore skip rows it already changed.
 */
export async function inBatches(migration: Migration, statement: string): Promise<number> {
  let total = 0;
  for (;;) {
    const [row] = await (migration as unknown as { execute(sql: string): Promise<{ changed: number | string }[]> }).execute(statement);
    const changed = Number(row?.changed ?? 0);
    total += changed;
    if (changed === 0) return total;
  }
}

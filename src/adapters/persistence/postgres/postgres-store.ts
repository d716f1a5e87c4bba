import type { DependencyCheck } from '../../../application/ports/dependency-check.js';
import type { UnitOfWork } from '../../../application/ports/unit-of-work.js';
import type { UsageLedger } from '../../../application/ports/usage-ledger.js';
import type { PoolState } from '../../metrics/metrics.js';
import { ensureDatabase, migrate, openPool, poolState, type DatabaseOptions } from './database.js';
import { PostgresCheck } from './postgres-check.js';
import { PostgresUnitOfWork } from './postgres-unit-of-work.js';
import { PostgresUsageLedger } from './postgres-usage-ledger.js';
import { TableStatistics } from './table-statistics.js';
import { sqlStateOf } from './unavailable.js';

/** The PostgreSQL store, connected and migrated: what the rest of the service needs of it. */
export interface PostgresStore {
  unitOfWork: UnitOfWork;
  check: DependencyCheck;
  /** Usage per user and day, and the requests granted under a limit, shared by every instance. */
  usage: UsageLedger;
  /** The names of the migrations this start applied. */
  migrationsApplied: string[];
  poolState(): PoolState | null;
  close(): Promise<void>;
}

/** The database named in the URL is not there (and may not be created). */
export class DatabaseMissingError extends Error {
  override readonly name = 'DatabaseMissingError';
}

/**
 * Connects and applies pending migrations; on failure nothing stays open. A database that does
 * not exist is not created (a mistyped name would start an empty store) unless `create` says so.
 */
export async function openPostgresStore(options: DatabaseOptions): Promise<PostgresStore> {
  const pool = openPool(options);
  try {
    if (options.create) await ensureDatabase(options);
    await pool.query('select 1').catch((error: unknown) => {
      if (sqlStateOf(error) !== '3D000') throw error;
      const name = decodeURIComponent(new URL(options.url).pathname.slice(1));
      throw new DatabaseMissingError(`the database ${JSON.stringify(name)} does not exist (create it, or set DATABASE_CREATE=true)`);
    });
    const migrationsApplied = await migrate(options);
    // Where autovacuum is off, the planner's statistics are kept by the service (table-statistics.ts).
    const statistics = options.keepStatistics === false ? null : new TableStatistics(pool, { note: options.note }).start();
    return {
      unitOfWork: new PostgresUnitOfWork(pool, options.searchLanguage),
      check: new PostgresCheck(pool),
      usage: new PostgresUsageLedger(pool),
      migrationsApplied,
      poolState: () => poolState(pool, options.poolMax),
      close: async () => {
        await statistics?.close();
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}

import type { DependencyCheck } from '../../../application/ports/dependency-check.js';
import type { UnitOfWork } from '../../../application/ports/unit-of-work.js';
import type { PoolState } from '../../metrics/metrics.js';
import { migrate, openDatabase, poolState, type DatabaseOptions } from './database.js';
import { MikroOrmUnitOfWork } from './mikro-orm-unit-of-work.js';
import { PostgresCheck } from './postgres-check.js';

/** The PostgreSQL store, connected and migrated: what the rest of the service needs of it. */
export interface PostgresStore {
  unitOfWork: UnitOfWork;
  check: DependencyCheck;
  /** The names of the migrations this start applied. */
  migrationsApplied: string[];
  poolState(): PoolState | null;
  close(): Promise<void>;
}

/** Connects and applies pending migrations; on failure nothing stays open. */
export async function openPostgresStore(options: DatabaseOptions): Promise<PostgresStore> {
  const orm = await openDatabase(options);
  try {
    const migrationsApplied = await migrate(orm);
    return {
      unitOfWork: new MikroOrmUnitOfWork(orm),
      check: new PostgresCheck(orm),
      migrationsApplied,
      poolState: () => poolState(orm),
      close: () => orm.close(true),
    };
  } catch (error) {
    await orm.close(true).catch(() => undefined);
    throw error;
  }
}

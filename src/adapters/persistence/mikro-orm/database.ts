import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import { MIGRATIONS } from './migrations/index.js';
import { ENTITY_SCHEMAS } from './schemas.js';

export interface DatabaseOptions {
  url: string;
  poolMax: number;
  /** Bounds connecting, waiting for a pooled connection, and each statement. */
  timeoutMs: number;
}

export const MIGRATIONS_FOLDER = 'src/adapters/persistence/mikro-orm/migrations';

/** MikroORM on PostgreSQL; nothing is connected until first use. */
export function openDatabase(options: DatabaseOptions): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: options.url,
    entities: ENTITY_SCHEMAS,
    extensions: [Migrator],
    connect: false,
    allowGlobalContext: false,
    debug: false,
    pool: { min: 0, max: options.poolMax, idleTimeoutMillis: 10_000 },
    driverOptions: {
      acquireConnectionTimeout: options.timeoutMs,
      connection: {
        connectionTimeoutMillis: options.timeoutMs,
        statement_timeout: options.timeoutMs * 5,
        query_timeout: options.timeoutMs * 5 + 1000,
        application_name: 'assistant-backend',
      },
    },
    migrations: {
      migrationsList: MIGRATIONS,
      path: MIGRATIONS_FOLDER,
      emit: 'ts',
      snapshot: false,
      transactional: true,
      allOrNothing: true,
      silent: true,
    },
  });
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((migration) => migration.name);
}

/** The connection pool's state, for metrics; null before the pool exists. */
export function poolState(orm: MikroORM): { used: number; free: number; pending: number; max: number } | null {
  try {
    const pool = orm.em.getConnection().getKnex().client.pool as
      | { numUsed(): number; numFree(): number; numPendingAcquires(): number; max: number }
      | undefined;
    if (!pool) return null;
    return { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires(), max: pool.max };
  } catch {
    return null;
  }
}

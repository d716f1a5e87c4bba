import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import { FlatEscapePostgreSqlDriver } from './flat-escape-driver.js';
import { MIGRATIONS } from './migrations/index.js';

export interface DatabaseOptions {
  url: string;
  poolMax: number;
  /** Bounds connecting, waiting for a pooled connection, and each statement (on the server and in the driver). */
  timeoutMs: number;
  /** Create the database when it does not exist (DATABASE_CREATE); otherwise a missing one stops start-up. */
  create?: boolean;
}

export const MIGRATIONS_FOLDER = 'src/adapters/persistence/mikro-orm/migrations';

/**
 * MikroORM on PostgreSQL as the connection, transaction and migration layer; nothing is
 * connected until first use. The tables are described once, by the migrations; the
 * repositories speak SQL to them, so there are no entities to discover.
 */
export function openDatabase(options: DatabaseOptions): Promise<MikroORM> {
  return MikroORM.init({
    driver: FlatEscapePostgreSqlDriver,
    clientUrl: options.url,
    entities: [],
    discovery: { warnWhenNoEntities: false },
    ensureDatabase: options.create === true,
    extensions: [Migrator],
    connect: false,
    allowGlobalContext: false,
    debug: false,
    pool: { min: 0, max: options.poolMax, idleTimeoutMillis: 10_000 },
    driverOptions: {
      acquireConnectionTimeout: options.timeoutMs,
      connection: {
        connectionTimeoutMillis: options.timeoutMs,
        // The server stops a statement at the bound; the driver gives up a little later, when the
        // server itself is silent (a stalled network), so every statement ends within the bound.
        statement_timeout: options.timeoutMs,
        query_timeout: options.timeoutMs + 250,
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

import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { corkQueries } from './corked-queries.js';
import { MIGRATIONS } from './migrations/index.js';

export interface DatabaseOptions {
  url: string;
  poolMax: number;
  /** Bounds connecting, waiting for a pooled connection, and each statement (on the server and in the driver). */
  timeoutMs: number;
  /** Create the database when it does not exist (DATABASE_CREATE); otherwise a missing one stops start-up. */
  create?: boolean;
  /** Where the driver's own warnings go (a connection that broke, say); never with statements or values. */
  warn?: (message: string) => void;
}

export const MIGRATIONS_FOLDER = 'src/adapters/persistence/mikro-orm/migrations';

/**
 * MikroORM on PostgreSQL as the connection, transaction and migration layer; nothing is
 * connected until first use. The tables are described once, by the migrations; the
 * repositories speak SQL to them, so there are no entities to discover.
 */
export function openDatabase(options: DatabaseOptions): Promise<MikroORM> {
  corkQueries();
  return MikroORM.init({
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
      // knex would print these to the console; they go to the service's log instead.
      log: { warn: (message: unknown) => options.warn?.(String(message)), error: (message: unknown) => options.warn?.(String(message)), deprecate: () => {}, debug: () => {} },
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

/** Any fixed number: the advisory lock instances take while they migrate (the same for every instance). */
const MIGRATION_LOCK = 7_342_019_661;

/**
 * Applies pending migrations; returns the names applied. Instances starting together take
 * turns (a PostgreSQL advisory lock, held on a connection of its own), so a new migration is
 * applied once and the others find it done.
 */
export async function migrate(orm: MikroORM, options: Pick<DatabaseOptions, 'url' | 'timeoutMs'>): Promise<string[]> {
  const lock = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: options.timeoutMs, application_name: 'assistant-backend-migrations' });
  lock.on('error', () => undefined); // a connection lost while migrating: the migrations' own transactions decide
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await orm.getMigrator().up();
    return applied.map((migration) => migration.name);
  } finally {
    await lock.end().catch(() => undefined);
  }
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

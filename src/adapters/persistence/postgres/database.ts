import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { migrationsFor } from './migrations/index.js';
import { checkSearchLanguage, keepSearchIndexesInStep, SearchExtensionMissingError, type Run } from './search-indexes.js';

export interface DatabaseOptions {
  url: string;
  poolMax: number;
  /** Bounds connecting, waiting for a pooled connection, and each statement (on the server and in the driver). */
  timeoutMs: number;
  /** Create the database when it does not exist (DATABASE_CREATE); otherwise a missing one stops start-up. */
  create?: boolean;
  /** Analyze the tables as they grow where autovacuum does not (DATABASE_ANALYZE, table-statistics.ts); on unless false. */
  keepStatistics?: boolean;
  /** Where the driver's own warnings go (an idle connection that broke, say); never with statements or values. */
  warn?: (message: string) => void;
  /** The text-search configuration search stems by (SEARCH_LANGUAGE); `english` when not given. */
  searchLanguage?: string;
  /** Told of long work at start-up (a search index rebuilt for a new SEARCH_LANGUAGE). */
  note?: (message: string) => void;
}

type MigrationOptions = Pick<DatabaseOptions, 'url' | 'timeoutMs' | 'searchLanguage' | 'note'>;

export const MIGRATIONS_FOLDER = 'src/adapters/persistence/postgres/migrations';

/**
 * How alike a word of a message must be to a searched word to count as its misspelling (pg_trgm's
 * word similarity, read by the `<%` operator and its index): 0.5 rather than pg_trgm's 0.6, which
 * misses common typos of short words ("budgte", "definately", "seperate" score 0.5 to 0.57).
 */
export const WORD_SIMILARITY_THRESHOLD = 0.5;

/**
 * The pool every statement of the service goes through (pg's own Pool); nothing is connected
 * until first use.
 */
export function openPool(options: DatabaseOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolMax,
    idleTimeoutMillis: 10_000,
    // Bounds connecting and waiting for a connection of a full pool alike.
    connectionTimeoutMillis: options.timeoutMs,
    // The server stops a statement at the bound; the driver gives up a little later, when the
    // server itself is silent (a stalled network), so every statement ends within the bound.
    statement_timeout: options.timeoutMs,
    query_timeout: options.timeoutMs + 250,
    application_name: 'assistant-backend',
    options: `-c pg_trgm.word_similarity_threshold=${WORD_SIMILARITY_THRESHOLD}`,
  });
  // An idle connection that breaks (a restarted server) is dropped by the pool; without a
  // listener its error would end the process.
  pool.on('error', (error) => options.warn?.(`idle connection lost: ${error.message}`));
  return pool;
}

/**
 * MikroORM, for the migrations only (its Migrator: the applied ones recorded in
 * `mikro_orm_migrations`). Each migration runs in its own transaction unless it says it may
 * not (a batched data change: see migrations/batches.ts).
 */
export function openMigrator(options: MigrationOptions): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: options.url,
    entities: [],
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    connect: false,
    allowGlobalContext: true,
    debug: false,
    pool: { min: 0, max: 1 },
    driverOptions: { acquireConnectionTimeout: options.timeoutMs, connection: { connectionTimeoutMillis: options.timeoutMs, application_name: 'assistant-backend-migrations' } },
    migrations: {
      migrationsList: migrationsFor({ searchLanguage: options.searchLanguage ?? 'english' }),
      path: MIGRATIONS_FOLDER,
      emit: 'ts',
      snapshot: false,
      transactional: true,
      allOrNothing: false,
      silent: true,
    },
  });
}

/** Any fixed number: the advisory lock instances take while they migrate (the same for every instance). */
const MIGRATION_LOCK = 7_342_019_661;
const LOCK_POLL_MS = 100;

/**
 * Applies pending migrations; returns the names applied. Instances starting together take
 * turns (a PostgreSQL advisory lock, held on a connection of its own), so a new migration is
 * applied once and the others find it done. SEARCH_LANGUAGE is checked first, and the search
 * index brought in step with it last (search-indexes.ts).
 */
export async function migrate(options: MigrationOptions): Promise<string[]> {
  const lock = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: options.timeoutMs, application_name: 'assistant-backend-migrations' });
  lock.on('error', () => undefined); // a connection lost while migrating: the migrations' own transactions decide
  await lock.connect();
  const orm = await openMigrator(options);
  try {
    // Polled rather than waited for: a statement waiting for the lock would hold a snapshot, and
    // `create index concurrently` (run by the instance holding it) waits for every older snapshot.
    while (!(await lock.query<{ taken: boolean }>('select pg_try_advisory_lock($1) as taken', [MIGRATION_LOCK])).rows[0]?.taken) {
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    }
    const language = options.searchLanguage ?? 'english';
    const run: Run = async (statement, values) => (await lock.query(statement, values)).rows;
    await checkSearchLanguage(run, language);
    const applied = await orm.getMigrator().up().catch((error: unknown) => {
      throw startUpProblemIn(error) ?? error;
    });
    await keepSearchIndexesInStep(run, language, options.note);
    return applied.map((migration) => migration.name);
  } finally {
    await orm.close(true).catch(() => undefined);
    await lock.end().catch(() => undefined);
  }
}

/** A failed migration's own explanation, when it has one for the operator (MikroORM wraps it in its own error). */
function startUpProblemIn(error: unknown): Error | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof SearchExtensionMissingError) return cause;
  }
  return undefined;
}

/** Creates the database named in the URL when it does not exist (connecting to `postgres` to do it). */
export async function ensureDatabase(options: MigrationOptions): Promise<void> {
  const orm = await openMigrator(options);
  try {
    await orm.schema.ensureDatabase();
  } finally {
    await orm.close(true).catch(() => undefined);
  }
}

/** The connection pool's state, for metrics. */
export function poolState(pool: pg.Pool, max: number): { used: number; free: number; pending: number; max: number } {
  return { used: pool.totalCount - pool.idleCount, free: pool.idleCount, pending: pool.waitingCount, max };
}

import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { DependencyCheck } from '../application/ports/dependency-check.js';
import type { Metrics } from '../adapters/metrics/metrics.js';
import { InMemoryStoreCheck } from '../adapters/persistence/memory/in-memory-store-check.js';
import { describeDatabase, migrate, openDatabase, poolState } from '../adapters/persistence/mikro-orm/database.js';
import { PostgresCheck } from '../adapters/persistence/mikro-orm/postgres-check.js';
import type { Config } from './config.js';
import type { Lifetime } from './lifetime.js';

export class DatabaseStartError extends Error {
  override readonly name = 'DatabaseStartError';
}

/** The store: PostgreSQL when configured (connected, migrated, its pool watched), else none (in memory). */
export async function openStore(config: Config, logger: Logger, metrics: Metrics, lifetime: Lifetime): Promise<{ orm: MikroORM | null; check: DependencyCheck }> {
  if (!config.database) return { orm: null, check: new InMemoryStoreCheck() };
  const orm = await openMigratedDatabase(config.database, logger);
  lifetime.own({ close: () => orm.close(true) });
  metrics.watchDatabasePool(() => poolState(orm));
  return { orm, check: new PostgresCheck(orm) };
}

/** Connects to PostgreSQL and applies pending migrations, saying which store is used. */
export async function openMigratedDatabase(settings: NonNullable<Config['database']>, logger: Logger): Promise<MikroORM> {
  const where = describeDatabase(settings.url);
  const orm = await openDatabase(settings);
  try {
    const applied = await migrate(orm);
    logger.info({ store: 'postgresql', database: where, migrationsApplied: applied }, `store: PostgreSQL at ${where}`);
    return orm;
  } catch (error) {
    await orm.close(true).catch(() => undefined);
    const reason = error instanceof Error ? error.message.replaceAll(settings.url, where) : String(error);
    throw new DatabaseStartError(`cannot use the database at ${where}: ${reason}`);
  }
}

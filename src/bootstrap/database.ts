import type { Logger } from 'pino';
import type { DependencyCheck } from '../application/ports/dependency-check.js';
import type { ReplyNotifications } from '../application/ports/reply-notifications.js';
import type { UnitOfWork } from '../application/ports/unit-of-work.js';
import type { UsageLedger } from '../application/ports/usage-ledger.js';
import type { Metrics } from '../adapters/metrics/metrics.js';
import { InMemoryStoreCheck } from '../adapters/persistence/memory/in-memory-store-check.js';
import { InMemoryUnitOfWork } from '../adapters/persistence/memory/in-memory-unit-of-work.js';
import { InMemoryUsageLedger } from '../adapters/persistence/memory/in-memory-usage-ledger.js';
import { BUILT_IN_LANGUAGES, knowsLanguage } from '../adapters/persistence/memory/search-text.js';
import { openPostgresStore, type PostgresStore } from '../adapters/persistence/postgres/postgres-store.js';
import { PostgresReplyNotifications } from '../adapters/persistence/postgres/postgres-reply-notifications.js';
import { ConfigInvalidError, type Config } from './config.js';
import type { Lifetime } from './lifetime.js';

export class DatabaseStartError extends Error {
  override readonly name = 'DatabaseStartError';
}

/** Host, port and database of a URL, without its credentials: safe to log. */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    return `postgresql://${parsed.host}${parsed.pathname}`;
  } catch {
    return 'postgresql (unparsable URL)';
  }
}

/** The store: PostgreSQL when DATABASE_URL is set (connected, migrated, its pool watched), else the in-memory store. */
export interface Store {
  unitOfWork: UnitOfWork;
  check: DependencyCheck;
  notifications: ReplyNotifications;
  /** Usage per user and day (and requests granted under a limit), in the same store. */
  usage: UsageLedger;
}

export async function openStore(config: Config, logger: Logger, metrics: Metrics, lifetime: Lifetime): Promise<Store> {
  if (!config.database) {
    const { maxMessages } = config.memoryStore;
    if (!knowsLanguage(config.search.language)) {
      const known = BUILT_IN_LANGUAGES.join(', ');
      throw new ConfigInvalidError(`invalid configuration: SEARCH_LANGUAGE ${JSON.stringify(config.search.language)} is not a text-search configuration the in-memory store knows (it knows PostgreSQL's own: ${known})`);
    }
    logger.info({ store: 'in-memory', maxMessages }, `store: in memory, at most ${maxMessages} messages (data is lost on restart; set DATABASE_URL for PostgreSQL)`);
    const unitOfWork = new InMemoryUnitOfWork(undefined, { maxMessages, logger, searchLanguage: config.search.language });
    return { unitOfWork, check: new InMemoryStoreCheck(), notifications: unitOfWork.notifications, usage: new InMemoryUsageLedger() };
  }
  const settings = config.database;
  const where = describeDatabase(settings.url);
  let store: PostgresStore;
  try {
    store = lifetime.own(
      await openPostgresStore({
        ...settings,
        searchLanguage: config.search.language,
        warn: (message) => logger.warn({ store: 'postgresql' }, `database driver: ${message.slice(0, 200)}`),
        note: (message) => logger.info({ store: 'postgresql' }, message),
      }),
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message.replaceAll(settings.url, where) : String(error);
    throw new DatabaseStartError(`cannot use the database at ${where}: ${reason}`);
  }
  logger.info({ store: 'postgresql', database: where, migrationsApplied: store.migrationsApplied }, `store: PostgreSQL at ${where}`);
  metrics.watchDatabasePool(() => store.poolState());
  // Replies written on other instances are announced here through LISTEN/NOTIFY.
  const notifications = lifetime.own(
    new PostgresReplyNotifications({
      url: settings.url,
      timeoutMs: settings.timeoutMs,
      onState: (state) => (state === 'lost' ? logger.warn({ store: 'postgresql' }, 'lost the connection that listens for replies; reconnecting') : logger.info('listening for replies of other instances')),
    }),
  );
  await notifications.start();
  return { unitOfWork: store.unitOfWork, check: store.check, notifications, usage: store.usage };
}

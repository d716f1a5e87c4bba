import type { MikroORM } from '@mikro-orm/postgresql';
import { migrate, openDatabase } from '../../src/adapters/persistence/mikro-orm/database.js';
import { MikroOrmUnitOfWork } from '../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { PostgresReplyNotifications } from '../../src/adapters/persistence/mikro-orm/postgres-reply-notifications.js';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { storeContracts } from './all-contracts.js';

describe('PostgreSQL store (MikroORM)', function () {
  let orm: MikroORM | undefined;
  let notifications: PostgresReplyNotifications | undefined;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
    orm = await openDatabase({ url: database.url, poolMax: 10, timeoutMs: 5000 });
    await migrate(orm);
    notifications = new PostgresReplyNotifications({ url: database.url, timeoutMs: 5000 });
    await notifications.start();
  });
  after(async () => {
    await notifications?.close();
    await orm?.close(true);
    await database?.drop();
  });

  storeContracts(async () => ({ unitOfWork: new MikroOrmUnitOfWork(orm!), notifications, close: async () => {} }));
});

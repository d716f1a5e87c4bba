import { expect } from 'chai';
import type pg from 'pg';
import { migrate, openPool } from '../../src/adapters/persistence/postgres/database.js';
import { PostgresUnitOfWork } from '../../src/adapters/persistence/postgres/postgres-unit-of-work.js';
import { openPostgresStore } from '../../src/adapters/persistence/postgres/postgres-store.js';
import { PostgresReplyNotifications } from '../../src/adapters/persistence/postgres/postgres-reply-notifications.js';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { storeContracts } from './all-contracts.js';

describe('PostgreSQL store', function () {
  let pool: pg.Pool | undefined;
  let notifications: PostgresReplyNotifications | undefined;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
    await migrate({ url: database.url, timeoutMs: 5000 });
    pool = openPool({ url: database.url, poolMax: 10, timeoutMs: 5000 });
    notifications = new PostgresReplyNotifications({ url: database.url, timeoutMs: 5000 });
    await notifications.start();
  });
  after(async () => {
    await notifications?.close();
    await pool?.end();
    await database?.drop();
  });

  storeContracts(async () => ({ unitOfWork: new PostgresUnitOfWork(pool!), notifications, close: async () => {} }));
});

describe('PostgreSQL store: instances starting together', function () {
  this.timeout(30_000);
  it('apply a new migration once; every instance starts', async function () {
    await requirePostgres(this);
    const database = await createTestDatabase();
    try {
      const stores = await Promise.all([1, 2, 3].map(() => openPostgresStore({ url: database.url, poolMax: 2, timeoutMs: 5000 })));
      const applied = stores.map((store) => store.migrationsApplied.length);
      await Promise.all(stores.map((store) => store.close()));
      expect(applied.filter((count) => count > 0), `migrations applied per instance: ${applied.join(', ')}`).to.have.length(1);
      expect(Math.max(...applied)).to.be.greaterThan(0);
    } finally {
      await database.drop();
    }
  });
});

import pg from 'pg';
import { InMemoryUsageLedger } from '../../src/adapters/persistence/memory/in-memory-usage-ledger.js';
import { migrate, openPool } from '../../src/adapters/persistence/postgres/database.js';
import { PostgresUsageLedger } from '../../src/adapters/persistence/postgres/postgres-usage-ledger.js';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { usageLedgerContract } from './usage-ledger.contract.js';

describe('in-memory usage ledger', () => {
  usageLedgerContract(async () => ({ ledger: new InMemoryUsageLedger(), close: async () => {} }));
});

describe('PostgreSQL usage ledger', function () {
  let pool: pg.Pool | undefined;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
    await migrate({ url: database.url, timeoutMs: 5000 });
    pool = openPool({ url: database.url, poolMax: 10, timeoutMs: 5000 });
  });
  after(async () => {
    await pool?.end();
    await database?.drop();
  });

  usageLedgerContract(async () => ({ ledger: new PostgresUsageLedger(pool!), close: async () => {} }));
});

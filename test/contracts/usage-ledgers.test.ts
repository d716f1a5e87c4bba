import { expect } from 'chai';
import pg from 'pg';
import { InMemoryUsageLedger } from '../../src/adapters/persistence/memory/in-memory-usage-ledger.js';
import { migrate, openPool } from '../../src/adapters/persistence/postgres/database.js';
import { PostgresUsageLedger } from '../../src/adapters/persistence/postgres/postgres-usage-ledger.js';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { DependencyUnavailableError } from '../../src/domain/errors.js';
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

  it('a request that waited its whole bound for a connection while every one was in use is told the database is busy, not unavailable', async () => {
    const onePool = openPool({ url: database!.url, poolMax: 1, timeoutMs: 300 });
    const held = await onePool.connect();
    try {
      const failure = await new PostgresUsageLedger(onePool).days('busy', '2026-11-28', '2026-11-28').catch((error: unknown) => error);
      expect(failure).to.be.instanceOf(DependencyUnavailableError);
      expect((failure as Error).message).to.equal('the database is busy (every connection of this instance is in use); try again shortly');
    } finally {
      held.release();
      await onePool.end();
    }
  });

  it('a sync whose clean-up of old request windows fails still succeeds: its counts, stored, are not sent again', async () => {
    const shortPool = openPool({ url: database!.url, poolMax: 2, timeoutMs: 300 });
    const locker = new pg.Client({ connectionString: database!.url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table usage_request_windows in access exclusive mode');
      const ledger = new PostgresUsageLedger(shortPool);
      const delta = { userId: 'cleaned', day: '2026-11-28', requests: 1, inputTokens: 0, outputTokens: 0, speechCharacters: 5 };
      const totals = await ledger.sync([delta], '2026-11-28', ['cleaned']);
      expect(totals.get('cleaned')).to.include({ requests: 1, speechCharacters: 5 });
      await locker.query('rollback');
      expect(await ledger.days('cleaned', '2026-11-28', '2026-11-28')).to.deep.equal([{ date: '2026-11-28', requests: 1, inputTokens: 0, outputTokens: 0, speechCharacters: 5 }]);
    } finally {
      await locker.end();
      await shortPool.end();
    }
  });
});

import { expect } from 'chai';
import pg from 'pg';
import { uid } from '../support/ids.js';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { startTestService } from '../support/service.js';
import { conversationManagementSuite } from './conversations.suite.js';

describe('managing conversations (PostgreSQL store)', function () {
  this.timeout(30_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
  });
  after(() => database?.drop());

  conversationManagementSuite(() => startTestService({ DATABASE_URL: database!.url }));

  it("after a user's erasure, no row of any table names the user in any text or JSON column", async () => {
    const service = await startTestService({ DATABASE_URL: database!.url });
    const user = uid('erased-user');
    try {
      const first = await service.post('/v1/chat', { user_id: user, text: `hello, I am ${user}` });
      await service.post('/api/chat/saveSession', { user_id: user, conversation_id: first.json.conversation_id, title: `about ${user}`, metadata: { who: user } });
      await service.post('/api/chat/saveMessage', { user_id: user, conversation_id: uid('c'), role: 'user', text: 'x', metadata: { me: user } });
      expect(await rowsNaming(database!.url, user)).to.be.greaterThan(0);
      const erased = await service.call('DELETE', `/api/users/${encodeURIComponent(user)}`);
      expect(erased.status).to.equal(200);
      expect(await rowsNaming(database!.url, user), 'rows naming the user after the erasure').to.equal(0);
    } finally {
      await service.stop();
    }
  });

  it('two instances sweeping at once delete each expired conversation exactly once', async () => {
    const environment = { DATABASE_URL: database!.url, TEMPORARY_TTL_HOURS: '1', SWEEP_INTERVAL_MS: '3600000' };
    const a = await startTestService(environment);
    const b = await startTestService(environment);
    try {
      const user = uid('sweep');
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push((await a.post('/v1/chat', { user_id: user, text: `temp ${i}`, temporary: true })).json.conversation_id);
      const client = new pg.Client({ connectionString: database!.url });
      await client.connect();
      try {
        // Two hours without activity: past the one-hour time to live.
        await client.query(`update conversations set active_at = now() - interval '2 hours' where conversation_id = any($1::text[])`, [ids]);
        const [x, y] = await Promise.all([sweepOnce(a), sweepOnce(b)]);
        expect(x + y, `swept ${x} + ${y}`).to.equal(30);
        const left = await client.query('select count(*)::int as n from conversations where conversation_id = any($1::text[])', [ids]);
        expect(left.rows[0].n).to.equal(0);
      } finally {
        await client.end();
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

/** Runs the instance's sweep once (the sweep its timer runs), repeating while another instance held it. */
async function sweepOnce(service: Awaited<ReturnType<typeof startTestService>>): Promise<number> {
  let total = 0;
  for (let round = 0; round < 5; round++) {
    const swept = await service.sweep();
    total += swept.temporary + swept.retained;
  }
  return total;
}

/** How many rows of any table hold `value` in a text, varchar or JSON column: every table, found from the catalogue. */
async function rowsNaming(url: string, value: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: columns } = await client.query<{ table_name: string; column_name: string; data_type: string }>(
      `select table_name, column_name, data_type from information_schema.columns
       where table_schema = 'public' and data_type in ('text', 'character varying', 'json', 'jsonb')`,
    );
    let found = 0;
    for (const { table_name: table, column_name: column } of columns) {
      const { rows } = await client.query<{ n: number }>(`select count(*)::int as n from "${table}" where "${column}"::text like '%' || $1 || '%'`, [value]);
      found += rows[0]!.n;
    }
    return found;
  } finally {
    await client.end();
  }
}

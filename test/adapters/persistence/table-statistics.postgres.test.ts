import { expect } from 'chai';
import pg from 'pg';
import { openPostgresStore } from '../../../src/adapters/persistence/postgres/postgres-store.js';
import { TableStatistics } from '../../../src/adapters/persistence/postgres/table-statistics.js';
import { createTestDatabase, requirePostgres, runStatements, withClient } from '../../support/postgres.js';

interface TableState {
  analyzed: boolean;
  changed: number;
}

function stateOf(url: string, table: string): Promise<TableState> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ analyzed: boolean; changed: string }>(
      `select last_analyze is not null as analyzed, n_mod_since_analyze as changed from pg_stat_user_tables where relname = $1`,
      [table],
    );
    return { analyzed: rows[0]!.analyzed, changed: Number(rows[0]!.changed) };
  });
}

/** The statistics system counts a backend's changes shortly after it ends: waits until `table` shows at least `changed`. */
async function counted(url: string, table: string, changed: number): Promise<void> {
  for (const started = Date.now(); Date.now() - started < 10_000; await new Promise((resolve) => setTimeout(resolve, 50))) {
    if ((await stateOf(url, table)).changed >= changed) return;
  }
  throw new Error(`${table}: fewer than ${changed} changes counted after 10 s`);
}

const USERS = (from: number, to: number) =>
  `insert into users (user_id, created_at) select 'u' || n, now() from generate_series(${from}, ${to}) as n`;

describe('PostgreSQL: the planner statistics kept where autovacuum does not run', function () {
  this.timeout(30_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let pool: pg.Pool | undefined;
  before(async function () {
    await requirePostgres(this);
  });
  beforeEach(async () => {
    database = await createTestDatabase();
    await (await openPostgresStore({ url: database.url, poolMax: 2, timeoutMs: 5000 })).close();
    // Off for these tables whatever the server's setting, so the test holds on any server.
    await runStatements(database.url, ['alter table users set (autovacuum_enabled = false)', 'alter table conversations set (autovacuum_enabled = false)']);
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
  });
  afterEach(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('analyzes a table once more rows changed than autovacuum’s rule allows (50 and a tenth of the rows), and only it', async () => {
    await runStatements(database!.url, [USERS(1, 200)]);
    await counted(database!.url, 'users', 200);
    expect(await stateOf(database!.url, 'users')).to.deep.equal({ analyzed: false, changed: 200 });

    expect(await new TableStatistics(pool!).keep()).to.deep.equal(['users']);

    expect(await stateOf(database!.url, 'users')).to.deep.equal({ analyzed: true, changed: 0 });
    expect((await stateOf(database!.url, 'conversations')).analyzed).to.equal(false);
  });

  it('leaves a table alone until its changes pass the rule again (50 + a tenth of its 200 rows: 70)', async () => {
    // No pause between two ANALYZEs: the rule alone.
    const statistics = new TableStatistics(pool!, { pauseMs: 0 });
    await runStatements(database!.url, [USERS(1, 200)]);
    await counted(database!.url, 'users', 200);
    await statistics.keep();

    await runStatements(database!.url, [USERS(201, 260)]);
    await counted(database!.url, 'users', 60);
    expect(await statistics.keep()).to.deep.equal([]);

    await runStatements(database!.url, [USERS(261, 280)]);
    await counted(database!.url, 'users', 80);
    expect(await statistics.keep()).to.deep.equal(['users']);
  });

  it('analyzes a table again within the pause (autovacuum_naptime) only once its rows have more than doubled', async () => {
    await runStatements(database!.url, [USERS(1, 200)]);
    await counted(database!.url, 'users', 200);
    expect(await new TableStatistics(pool!).keep()).to.deep.equal(['users']);

    await runStatements(database!.url, [USERS(201, 280), 'update users set created_at = created_at']);
    await counted(database!.url, 'users', 280);
    expect(await new TableStatistics(pool!).keep(), '280 rows, 280 changed since: past the rule, but not doubled').to.deep.equal([]);

    await runStatements(database!.url, [USERS(281, 420)]);
    await counted(database!.url, 'users', 420);
    expect(await new TableStatistics(pool!).keep(), '420 rows: more than twice the 200 analyzed').to.deep.equal(['users']);
  });

  it('analyzes a changed table again once the pause has passed', async () => {
    const statistics = new TableStatistics(pool!, { pauseMs: 400 });
    await runStatements(database!.url, [USERS(1, 200)]);
    await counted(database!.url, 'users', 200);
    expect(await statistics.keep()).to.deep.equal(['users']);

    await runStatements(database!.url, ['update users set created_at = created_at']);
    await counted(database!.url, 'users', 200);
    expect(await statistics.keep(), 'within the pause').to.deep.equal([]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await statistics.keep(), 'after it').to.deep.equal(['users']);
  });

  it('reads a table’s own threshold: one set higher leaves it alone', async () => {
    await runStatements(database!.url, ['alter table users set (autovacuum_analyze_threshold = 1000)', USERS(1, 200)]);
    await counted(database!.url, 'users', 200);
    expect(await new TableStatistics(pool!).keep()).to.deep.equal([]);
  });

  it('analyzes nothing while another instance holds the lock, and leaves the table due for the next look', async () => {
    await runStatements(database!.url, [USERS(1, 200)]);
    await counted(database!.url, 'users', 200);
    const other = new pg.Client({ connectionString: database!.url });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select pg_advisory_xact_lock(7342019663)');
      expect(await new TableStatistics(pool!).keep()).to.deep.equal([]);
      await other.query('commit');
    } finally {
      await other.end();
    }
    expect(await new TableStatistics(pool!).keep()).to.deep.equal(['users']);
  });

  it('makes a connection plan again: a prepared statement planned while the table was small stops reading it whole', async () => {
    await runStatements(database!.url, [USERS(1, 50)]);
    const client = await pool!.connect();
    try {
      // As pg does after a few executions of a prepared statement: one plan for all values.
      await client.query('set plan_cache_mode = force_generic_plan');
      await client.query(`prepare by_ids(text[]) as select u.created_at from users u join unnest($1::text[]) as w(id) on w.id = u.user_id`);
      const plan = async () => (await client.query<{ 'QUERY PLAN': string }>(`explain execute by_ids('{u1,u2}')`)).rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(await plan(), 'on 50 rows').to.match(/Seq Scan on users/);
      await runStatements(database!.url, [USERS(51, 20_000)]);
      await counted(database!.url, 'users', 20_000);
      expect(await plan(), 'on 20,000 rows, the plan of 50').to.match(/Seq Scan on users/);
      expect(await new TableStatistics(pool!).keep()).to.deep.equal(['users']);
      expect(await plan(), 'analyzed').not.to.match(/Seq Scan on users/);
    } finally {
      client.release();
    }
  });

  it('runs with the store: a database that arrives with unanalyzed tables (restored, say) has them analyzed at start', async () => {
    await runStatements(database!.url, [USERS(1, 200)]);
    await counted(database!.url, 'users', 200);
    const store = await openPostgresStore({ url: database!.url, poolMax: 2, timeoutMs: 5000 });
    try {
      let state = await stateOf(database!.url, 'users');
      for (const started = Date.now(); !state.analyzed && Date.now() - started < 5000; state = await stateOf(database!.url, 'users')) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(state).to.deep.equal({ analyzed: true, changed: 0 });
    } finally {
      await store.close();
    }
  });
});

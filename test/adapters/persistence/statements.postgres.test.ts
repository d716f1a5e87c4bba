import { expect } from 'chai';
import pg from 'pg';
import { inTransaction, sql, Statements } from '../../../src/adapters/persistence/postgres/statements.js';
import { createTestDatabase, requirePostgres } from '../../support/postgres.js';

const backend = async (db: Statements) => (await db.rows<{ pid: number }>(sql`select pg_backend_pid() as pid`))[0]!.pid;

describe('PostgreSQL: statements on pooled connections', function () {
  this.timeout(20_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let pool: pg.Pool | undefined;
  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
  });
  beforeEach(() => {
    // One connection: whichever statement runs next runs on it, or on a new one if it was closed.
    pool = new pg.Pool({ connectionString: database!.url, max: 1, statement_timeout: 200 });
  });
  afterEach(async () => {
    await pool?.end();
  });
  after(async () => {
    await database?.drop();
  });

  it('a statement the server refuses leaves its connection in the pool, its prepared statements usable', async () => {
    const db = new Statements(pool!);
    const first = await backend(db);
    const refused = await db.rows(sql`select 1 / ${0}::int as never`).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(pg.DatabaseError);
    expect(refused).to.include({ code: '22012', sql: 'select 1 / $1::int as never' });
    // A statement cancelled by the statement time-out is refused the same way.
    const cancelled = await db.rows(sql`select pg_sleep(${5})`).then(
      () => null,
      (error: unknown) => error,
    );
    expect(cancelled).to.include({ code: '57014' });
    expect(await backend(db), 'the same connection (pg_backend_pid) serves the next statement').to.equal(first);
    expect(pool!.totalCount).to.equal(1);
  });

  it('texts of one length are told apart: each is its own prepared statement, reused when the text comes again', async () => {
    const db = new Statements(pool!);
    const ax = () => db.rows<{ v: string }>(sql`select ${'a'}::text || 'x' as v`);
    const by = () => db.rows<{ v: string }>(sql`select ${'b'}::text || 'y' as v`);
    for (let i = 0; i < 3; i++) {
      expect((await ax())[0]!.v).to.equal('ax');
      expect((await by())[0]!.v).to.equal('by');
    }
    const prepared = await db.rows<{ statement: string }>(sql`select statement from pg_prepared_statements where statement like ${'select $1::text || %'}`);
    expect(prepared.map((row) => row.statement).sort()).to.deep.equal(["select $1::text || 'x' as v", "select $1::text || 'y' as v"]);
  });

  it('a statement that fails to parse is not taken for prepared: the connection goes on', async () => {
    const db = new Statements(pool!);
    const first = await backend(db);
    const unknown = await db.rows(sql`select no_such_column from pg_class where oid = ${1}`).then(
      () => null,
      (error: unknown) => error,
    );
    expect(unknown).to.include({ code: '42703' });
    expect(await backend(db)).to.equal(first);
    const [row] = await db.rows<{ n: number }>(sql`select ${41}::int + 1 as n`);
    expect(row!.n).to.equal(42);
  });

  it('a connection that ends (its backend terminated) is closed, and the next statement gets a new one', async () => {
    const db = new Statements(pool!);
    const first = await backend(db);
    const ended = await db.rows(sql`select pg_terminate_backend(pg_backend_pid())`).then(
      () => null,
      (error: unknown) => error,
    );
    expect(ended, 'the statement failed').to.be.instanceOf(Error);
    const next = await backend(db);
    expect(next).to.be.a('number').and.not.equal(first);
    expect(pool!.totalCount).to.equal(1);
  });

  it('a connection that emits an error while out of the pool is closed after its statement, not given back; the next statement gets a new one', async () => {
    const db = new Statements(pool!);
    const first = await backend(db);
    // Heard while the statement runs, on the connection it took (as a lost socket would be told).
    pool!.once('acquire', (client: pg.PoolClient) => setImmediate(() => client.emit('error', new Error('connection lost'))));
    const [row] = await db.rows<{ n: number }>(sql`select ${1}::int as n from pg_sleep(${0.05})`);
    expect(row!.n, 'the statement itself answered').to.equal(1);
    const next = await backend(db);
    expect(next).to.be.a('number').and.not.equal(first);
    expect(pool!.totalCount).to.equal(1);
    // Its successor is given back as usual.
    expect(await backend(db)).to.equal(next);
  });

  it('a transaction whose statement failed is rolled back, and its connection serves the next one', async () => {
    const db = new Statements(pool!);
    const first = await backend(db);
    await db.changed(sql`create temporary table if not exists kept (n int)`);
    const failed = await inTransaction(pool!, async (tx) => {
      await tx.changed(sql`insert into kept values (${1})`);
      await tx.rows(sql`select 1 / ${0}::int`);
    }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failed).to.include({ code: '22012' });
    // The temporary table lives on the connection: it is there, and the insert was rolled back.
    const [row] = await db.rows<{ count: string }>(sql`select count(*) from kept`);
    expect(row!.count).to.equal('0');
    expect(await backend(db)).to.equal(first);
  });
});

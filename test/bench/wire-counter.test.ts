import { expect } from 'chai';
import pg from 'pg';
import { startWireCounter, type WireCounter } from '../../bench/support/wire-counter.js';
import { ADMIN_URL, requirePostgres } from '../support/postgres.js';

describe('bench: the wire round-trip counter', function () {
  let counter: WireCounter;
  let client: pg.Client;

  before(async function () {
    await requirePostgres(this);
    const server = new URL(ADMIN_URL);
    counter = await startWireCounter({ host: server.hostname, port: Number(server.port || 5432) });
    client = new pg.Client({ connectionString: counter.via(ADMIN_URL) });
    await client.connect();
  });

  after(async () => {
    await client?.end();
    await counter?.close();
  });

  beforeEach(() => counter.reset());

  it('counts nothing for connecting, and one round trip per simple query', async () => {
    expect(counter.counts()).to.deep.equal({ roundTrips: 0, statements: 0 });
    for (let i = 0; i < 3; i++) await client.query('select 1');
    expect(counter.counts()).to.deep.equal({ roundTrips: 3, statements: 3 });
  });

  it('counts a parameterized query (Parse, Bind, Describe, Execute, Sync) as one round trip', async () => {
    const rows = (await client.query('select $1::int + 1 as n', [41])).rows;
    expect(rows[0].n).to.equal(42);
    await client.query({ name: 'bench-counter-named', text: 'select $1::text as t', values: ['a'] });
    await client.query({ name: 'bench-counter-named', text: 'select $1::text as t', values: ['b'] }); // no Parse again
    expect(counter.counts()).to.deep.equal({ roundTrips: 3, statements: 3 });
  });

  it('counts a transaction as its statements, BEGIN and COMMIT included', async () => {
    await client.query('begin');
    await client.query('select $1::int', [1]);
    await client.query('select $1::int', [2]);
    await client.query('commit');
    expect(counter.counts()).to.deep.equal({ roundTrips: 4, statements: 4 });
  });

  it('reads a message split across many TCP chunks', async () => {
    await client.query(`select '${'x'.repeat(200_000)}' as big`);
    await client.query('select $1::text as t', ['y'.repeat(100_000)]);
    expect(counter.counts()).to.deep.equal({ roundTrips: 2, statements: 2 });
  });

  it('counts every client connection, each from its own startup', async () => {
    const pool = new pg.Pool({ connectionString: counter.via(ADMIN_URL), max: 4 });
    try {
      await Promise.all(Array.from({ length: 8 }, () => pool.query('select pg_sleep(0.01)')));
    } finally {
      await pool.end();
    }
    expect(counter.counts()).to.deep.equal({ roundTrips: 8, statements: 8 });
  });
});

import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { missingTool } from './required-tool.js';
import { startStallingProxy, type StallingProxy } from './tcp-fixtures.js';

/**
 * PostgreSQL for tests: TEST_DATABASE_URL (an admin connection, e.g. to the `postgres`
 * database), or the local server's default. Each test run gets a fresh database of its
 * own, dropped at the end.
 */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let reachable: Promise<boolean> | undefined;

export function postgresReachable(): Promise<boolean> {
  reachable ??= (async () => {
    const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return reachable;
}

/**
 * For a describe() of PostgreSQL suites: skips them with a clear message when no server is
 * reachable locally, but fails them in CI (CI=true), where PostgreSQL must be there.
 */
export function requirePostgres(context: Mocha.Context): Promise<void> {
  return postgresReachable().then((ok) => {
    if (!ok) missingTool(context, `no PostgreSQL reachable at ${redact(ADMIN_URL)}`, 'start one, or set TEST_DATABASE_URL');
  });
}

/** Creates an empty database; returns its URL and how to drop it. */
export async function createTestDatabase(prefix = 'assistant_test'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${uuidv7().replaceAll('-', '').slice(-16)}`;
  await admin(`create database "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => dropDatabase(name) };
}

/** How long a drop waits for the database's connections to end by themselves before it ends them. */
const DROP_WAIT_MS = 2000;

/**
 * Drops a database once its connections have ended, or after DROP_WAIT_MS ending them (`force`).
 * pg's `pool.end()` resolves as soon as it has asked its connections to end, before the server has
 * seen them go: dropped at once, a connection still ending got the server's "terminating connection"
 * as an error, which the pool, no longer listening for it, threw in whatever test ran next.
 */
async function dropDatabase(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    const connected = async () =>
      Number((await client.query<{ n: string }>(`select count(*) as n from pg_stat_activity where datname = $1 and backend_type = 'client backend'`, [name])).rows[0]!.n);
    for (let waited = 0; waited < DROP_WAIT_MS && (await connected()) > 0; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}

/** Runs `work` on a connection of its own to `url`, closed after it (a backend reports its statistics counts as it ends). */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Runs `statements` in order on a connection of its own to `url`. */
export const runStatements = (url: string, statements: string[]): Promise<void> =>
  withClient(url, async (client) => {
    for (const statement of statements) await client.query(statement);
  });

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = parsed.password ? '***' : '';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** A test database reached through a proxy that can be made to go silent (tcp-fixtures.ts): the proxy, and the database's URL through it. */
export async function throughStallingProxy(databaseUrl: string): Promise<{ proxy: StallingProxy; url: string }> {
  const proxy = await startStallingProxy(Number(new URL(ADMIN_URL).port || 5432));
  const url = new URL(databaseUrl);
  url.host = `127.0.0.1:${proxy.port}`;
  return { proxy, url: url.toString() };
}

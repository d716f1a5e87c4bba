import pg from 'pg';
import type { Sql } from 'sql-template-tag';

export { default as sql, empty, join, raw, type Sql } from 'sql-template-tag';

/** Distinct statement texts given a name (a prepared statement); any beyond are sent unnamed. */
const MAX_NAMED = 500;
/**
 * The names given, by the length of their text: a statement's text is several kilobytes, built
 * anew for every call, and a Map keyed by the text itself would hash all of it on every lookup
 * (half the cost of building it); texts of one length are few, and comparing two is cheap.
 */
const namesByLength = new Map<number, { text: string; name: string }[]>();
let namedCount = 0;

/**
 * Statements written as `sql` templates (sql-template-tag): each value sits where it is used
 * and travels apart from the text as a parameter, never written into SQL. Each text is sent
 * as a named prepared statement (pg's own `{ name, text, values }` query), so the server
 * parses it once per connection rather than once per request (and, after five runs, may keep
 * a generic plan for it: docs/operations.md).
 *
 * On the pool, each statement takes a connection for itself (atomic by itself), given back after
 * it even when the statement failed (pg's own `pool.query` would close it: see `checkOut`); on a
 * connection of a transaction, statements run in that transaction (see `inTransaction`).
 */
export class Statements {
  constructor(private readonly on: pg.Pool | pg.PoolClient) {}

  /** Whether the statements run in a transaction (a failed one aborts it: it cannot simply be sent again). */
  get transactional(): boolean {
    return !(this.on instanceof pg.Pool);
  }

  async rows<T>(query: Sql): Promise<T[]> {
    return (await this.send(query)).rows as T[];
  }

  /**
   * `rows`, but planned anew for its values every time (an unnamed statement): for a statement
   * whose best plan depends on them, where a generic plan kept for the connection could be
   * ruinous (a search pattern too short for any trigram must not be looked for in the trigram
   * index: that reads the whole index).
   */
  async rowsPlannedForValues<T>(query: Sql): Promise<T[]> {
    return (await this.send(query, false)).rows as T[];
  }

  /** The number of rows the statement changed. */
  async changed(query: Sql): Promise<number> {
    return (await this.send(query)).rowCount ?? 0;
  }

  private async send(query: Sql, prepared = true): Promise<pg.QueryResult> {
    const text = query.text;
    const config = { name: prepared ? nameOf(text) : undefined, text, values: query.values };
    try {
      if (!(this.on instanceof pg.Pool)) return await this.on.query(config);
      const connection = await checkOut(this.on);
      let failed: Error | undefined;
      try {
        return await connection.client.query(config);
      } catch (error) {
        if (!endsStatementOnly(error)) failed = error instanceof Error ? error : new Error('the statement failed');
        throw error;
      } finally {
        connection.giveBack(failed);
      }
    } catch (error) {
      // The text (placeholders, never values) names the statement in the log; see error-serializer.ts.
      if (error instanceof Error) Object.assign(error, { sql: text });
      throw error;
    }
  }
}

/**
 * Whether the server refused the statement alone, the session going on (severity ERROR: a
 * constraint, a deadlock, a cancelled statement...), so its connection, with its prepared
 * statements, can serve the next one. Anything else (FATAL, a lost connection, a time-out of
 * the driver) leaves the connection in doubt.
 */
function endsStatementOnly(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.severity === 'ERROR';
}

/**
 * The error each connection emitted, heard by a listener of its own added once (the first time it
 * is checked out) rather than added and removed around every statement.
 */
const errorsHeard = new WeakMap<pg.PoolClient, { error?: Error }>();

/**
 * A connection of the pool, out of it until `giveBack`. pg's `pool.query` closes its connection
 * after any failed statement, so a client whose requests fail (a statement time-out, a lost race)
 * would cost the database a new connection (a new backend process, its statements parsed again)
 * each time, and most under load; here a connection goes back to the pool unless it broke: it
 * emitted an error while out (a connection out of the pool has no other listener, and an error
 * nobody listens to would end the process), or `giveBack` is told why it cannot be trusted.
 * (pg's pool itself closes a connection that ended.)
 */
async function checkOut(pool: pg.Pool): Promise<{ client: pg.PoolClient; giveBack(failure?: Error): void }> {
  const client = await pool.connect();
  let heard = errorsHeard.get(client);
  if (!heard) {
    const record: { error?: Error } = {};
    client.on('error', (error: Error) => (record.error = error));
    errorsHeard.set(client, (heard = record));
  }
  // An error while it sat in the pool took it out of the pool (pg's own listener there): one checked out starts clean.
  heard.error = undefined;
  return {
    client,
    giveBack(failure) {
      client.release(heard.error ?? failure);
    },
  };
}

function nameOf(text: string): string | undefined {
  const sameLength = namesByLength.get(text.length);
  const known = sameLength?.find((entry) => entry.text === text);
  if (known) return known.name;
  if (namedCount >= MAX_NAMED) return undefined;
  const entry = { text, name: `s${++namedCount}` };
  if (sameLength) sameLength.push(entry);
  else namesByLength.set(text.length, [entry]);
  return entry.name;
}

/**
 * Runs `work` in one transaction on one connection of the pool: committed when it returns,
 * rolled back when it throws. A connection that broke, or whose rollback failed, is not given back
 * to the pool.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (db: Statements) => Promise<T>): Promise<T> {
  const { client, giveBack } = await checkOut(pool);
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const result = await work(new Statements(client));
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch((rollback: unknown) => {
      broken = rollback instanceof Error ? rollback : new Error('rollback failed');
    });
    throw error;
  } finally {
    giveBack(broken);
  }
}

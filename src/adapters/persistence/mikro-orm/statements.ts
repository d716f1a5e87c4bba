import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

/** The part of a pg client the repositories use. */
interface PgClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}
/** Where a statement gets its connection: knex's pool, or the connection of the transaction in progress. */
interface ConnectionSource {
  acquireConnection(): Promise<PgClient>;
  releaseConnection(connection: PgClient): Promise<unknown>;
}

/** Distinct statement texts given a name (a prepared statement); any beyond are sent unnamed. */
const MAX_NAMED = 500;
const prepared = new Map<string, { name: string | undefined; text: string }>();

/**
 * Statements sent to PostgreSQL as parameterized, named prepared statements, on the connection
 * MikroORM gives the unit of work (its transaction's, or one from its pool for the length of
 * the statement). The repositories write `?` for each value; the values travel apart from the
 * text, so the server parses each statement once per connection rather than once per request
 * (and, after five runs, may keep a generic plan for it: docs/operations.md), and no value is ever
 * written into SQL. (`em.execute` writes every value into the text as a literal, and the server
 * parses and plans that text anew each time.)
 */
export class Statements {
  private constructor(
    private readonly sourceOf: () => ConnectionSource,
    /** MikroORM's own translation of driver errors (DeadlockException, ConnectionException…). */
    private readonly convert: (error: Error) => Error,
  ) {}

  /** On the transaction `em` is in. */
  static inTransaction(em: EntityManager): Statements {
    const transaction = em.getTransactionContext<{ client: ConnectionSource }>();
    if (!transaction) throw new Error('Statements.inTransaction: the EntityManager is not in a transaction');
    return new Statements(() => transaction.client, converterOf(em));
  }

  /** Each statement on a connection of the pool, by itself (the pool is made on first use). */
  static pooled(orm: MikroORM): Statements {
    return new Statements(() => orm.em.getConnection().getKnex().client as unknown as ConnectionSource, converterOf(orm.em as EntityManager));
  }

  async rows<T>(sql: string, values: readonly unknown[] = []): Promise<T[]> {
    return (await this.send(sql, values)).rows as T[];
  }

  /** The number of rows the statement changed. */
  async changed(sql: string, values: readonly unknown[] = []): Promise<number> {
    return (await this.send(sql, values)).rowCount ?? 0;
  }

  private async send(sql: string, values: readonly unknown[]) {
    const statement = preparedOf(sql);
    const source = this.sourceOf();
    let connection: PgClient | undefined;
    try {
      connection = await source.acquireConnection();
      return await connection.query({ name: statement.name, text: statement.text, values: values as unknown[] });
    } catch (error) {
      // Failing to connect, too (pg's "timeout expired"), is a driver error MikroORM translates.
      if (!(error instanceof Error)) throw error;
      // The text (placeholders, never values) names the statement in the log; see error-serializer.ts.
      throw this.convert(Object.assign(error, { sql: statement.text }));
    } finally {
      if (connection) await source.releaseConnection(connection);
    }
  }
}

function converterOf(em: EntityManager): (error: Error) => Error {
  const converter = em.getPlatform().getExceptionConverter();
  return (error) => converter.convertException(error);
}

function preparedOf(sql: string): { name: string | undefined; text: string } {
  let statement = prepared.get(sql);
  if (!statement) {
    statement = { name: prepared.size < MAX_NAMED ? `s${prepared.size + 1}` : undefined, text: numberPlaceholders(sql) };
    if (statement.name) prepared.set(sql, statement);
  }
  return statement;
}

/** `?` → `$1`, `$2`…, outside quoted literals, identifiers and comments. */
export function numberPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      const stop = end === -1 ? sql.length : end + 1;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      const stop = end === -1 ? sql.length : end + 2;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (c === '?') {
      out += `$${++n}`;
    } else {
      out += c;
    }
  }
  return out;
}

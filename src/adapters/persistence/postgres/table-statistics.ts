import type pg from 'pg';

/** Any fixed number: the advisory lock one instance at a time holds while it analyzes (the same on every instance). */
const ANALYZE_LOCK = 7_342_019_663;

/** How often the tables' changes are looked at: a table that grows from nothing is re-planned within seconds. */
const INTERVAL_MS = 5_000;

/** An ANALYZE samples a bounded number of rows, but on a cold, large table they are many random reads. */
const ANALYZE_TIMEOUT = '5min';

/**
 * The service's tables whose planner statistics are due and that PostgreSQL will not analyze
 * itself: autovacuum off (for the server, or for the table), more rows changed since the last
 * ANALYZE than autovacuum's own rule would allow (`autovacuum_analyze_threshold` +
 * `autovacuum_analyze_scale_factor` × the rows, the table's own settings first), and either its
 * last ANALYZE longer ago than the pause ($1 seconds; null: `autovacuum_naptime`, as autovacuum
 * visits a database once a naptime) or its rows more than doubled since (a table growing from
 * nothing is planned anew within seconds, at each doubling). A table whose rows change more than
 * they grow (replies written as they come) is analyzed once a pause, not at every look. With
 * `track_counts` off nothing is counted, so nothing is ever due.
 */
const DUE = `
  select s.relname as table
  from pg_stat_user_tables s
  join pg_class c on c.oid = s.relid
  cross join lateral (
    select coalesce(max(option_value) filter (where option_name = 'autovacuum_enabled'), 'on')::bool as enabled,
           coalesce(max(option_value) filter (where option_name = 'autovacuum_analyze_threshold'),
                    current_setting('autovacuum_analyze_threshold'))::float8 as threshold,
           coalesce(max(option_value) filter (where option_name = 'autovacuum_analyze_scale_factor'),
                    current_setting('autovacuum_analyze_scale_factor'))::float8 as scale_factor
    from pg_options_to_table(c.reloptions)) t
  where s.schemaname = current_schema()
    and not (current_setting('autovacuum')::bool and t.enabled)
    and s.n_mod_since_analyze > t.threshold + t.scale_factor * greatest(c.reltuples, 0)
    and (s.last_analyze is null
         or s.last_analyze < now() - coalesce($1::float8 * interval '1 second', current_setting('autovacuum_naptime')::interval)
         or s.n_live_tup > 2 * greatest(c.reltuples, 0))
  order by s.relname`;

/**
 * Keeps the planner's statistics of the service's tables when PostgreSQL does not.
 *
 * The service's statements are prepared, and a connection plans a prepared statement once for
 * all its values (a generic plan) after a few executions; a plan made while a table was nearly
 * empty reads it whole (a sequential scan costs nothing on ten rows), and it is kept until the
 * table's statistics change. With autovacuum on, PostgreSQL analyzes a growing table again and
 * again, and each ANALYZE makes every connection plan anew. With autovacuum off, a fresh
 * database's plans stay those of its first seconds, and every chat turn reads the whole
 * `messages` table: measured, a third of the turns a second, falling as the table grows.
 *
 * So, every few seconds, the tables due by autovacuum's own rule and left alone by it are
 * analyzed (each at most once per autovacuum's naptime, unless it has doubled: `DUE`), by one
 * instance at a time (an advisory lock), on one pooled connection. Where
 * autovacuum runs, this is one look at `pg_stat_user_tables` every few seconds and nothing else.
 */
export class TableStatistics {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private told = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: {
      note?: (message: string) => void;
      /** Least time between two ANALYZEs of a table that has not doubled meanwhile (ms); the server's `autovacuum_naptime` unless given. */
      pauseMs?: number;
    } = {},
  ) {}

  /** Looks now (a restored database may arrive unanalyzed), then every interval. */
  start(): this {
    const tick = () => {
      this.running = this.keep()
        .catch(() => undefined) // the database away for a moment: the next look tries again
        .finally(() => {
          if (this.timer) this.timer = setTimeout(tick, INTERVAL_MS).unref();
        });
    };
    this.timer = setTimeout(tick, 0).unref();
    return this;
  }

  /** Analyzes the tables due now (none while another instance does); returns their names. */
  async keep(): Promise<string[]> {
    const client = await this.pool.connect();
    let broken: unknown;
    try {
      const pause = this.options.pauseMs === undefined ? null : this.options.pauseMs / 1000;
      const due = (await client.query<{ table: string }>(DUE, [pause])).rows.map((row) => row.table);
      if (due.length === 0) return [];
      await client.query('begin');
      try {
        const [lock] = (await client.query<{ held: boolean }>('select pg_try_advisory_xact_lock($1) as held', [ANALYZE_LOCK])).rows;
        if (!lock?.held) {
          await client.query('rollback');
          return [];
        }
        await client.query(`set local statement_timeout = '${ANALYZE_TIMEOUT}'`);
        await client.query(`analyze ${due.map((table) => client.escapeIdentifier(table)).join(', ')}`);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback').catch((rollback: unknown) => (broken = rollback));
        throw error;
      }
      if (!this.told) {
        this.told = true;
        this.options.note?.(`autovacuum is off for this database's tables: the service analyzes them itself as they grow (now: ${due.join(', ')})`);
      }
      return due;
    } finally {
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  /** Stops looking; resolves once a look under way has ended. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}

import type pg from 'pg';
import type { UsageDelta, UsageLedger } from '../../../application/ports/usage-ledger.js';
import type { UsageCounts, UsageDay } from '../../../domain/usage.js';
import { sql, Statements } from './statements.js';
import { isDatabaseUnavailable, unavailableError } from './unavailable.js';

interface CountsRow {
  user_id: string;
  day: string;
  requests: string;
  input_tokens: string;
  output_tokens: string;
  speech_characters: string;
}

const countsOf = (row: CountsRow): UsageCounts => ({
  requests: Number(row.requests),
  inputTokens: Number(row.input_tokens),
  outputTokens: Number(row.output_tokens),
  speechCharacters: Number(row.speech_characters),
});

/** How often, at most, minutes long past are deleted (by whichever instance syncs). */
const CLEAN_EVERY_MS = 60_000;
const WINDOW_KEEP = '10 minutes';

/**
 * The usage ledger in PostgreSQL: `usage` (user, day) rows added to by upserts, one statement
 * per batch of any number of users; `usage_request_windows` (user, minute) rows whose `granted`
 * only an atomic upsert changes, so claims from every instance together stay within the limit
 * (each claim locks its row; `last_grant` reports what that claim got).
 */
export class PostgresUsageLedger implements UsageLedger {
  private readonly db: Statements;
  private cleanedAt = 0;

  constructor(private readonly pool: pg.Pool) {
    this.db = new Statements(pool);
  }

  sync(deltas: UsageDelta[], day: string, users: string[]): Promise<Map<string, UsageCounts>> {
    return this.guard(async () => {
      const column = <K extends keyof UsageDelta>(key: K) => deltas.map((delta) => delta[key]);
      const rows = await this.db.rows<CountsRow>(
        sql`/* usage.sync */ with delta as (
           select * from unnest(${column('userId')}::text[], ${column('day')}::date[], ${column('requests')}::bigint[],
             ${column('inputTokens')}::bigint[], ${column('outputTokens')}::bigint[], ${column('speechCharacters')}::bigint[])
             as d(user_id, day, requests, input_tokens, output_tokens, speech_characters)),
         added as (
           insert into usage as u (user_id, day, requests, input_tokens, output_tokens, speech_characters)
           select * from delta
           on conflict (user_id, day) do update set
             requests = u.requests + excluded.requests, input_tokens = u.input_tokens + excluded.input_tokens,
             output_tokens = u.output_tokens + excluded.output_tokens, speech_characters = u.speech_characters + excluded.speech_characters
           returning *)
         select user_id, day::text, requests, input_tokens, output_tokens, speech_characters from added where day = ${day}::date
         union all
         select user_id, day::text, requests, input_tokens, output_tokens, speech_characters from usage
         where day = ${day}::date and user_id = any(${users}::text[])
           and user_id not in (select user_id from delta where day = ${day}::date)`,
      );
      const wanted = new Set(users);
      await this.cleanOldWindows();
      return new Map(rows.filter((row) => wanted.has(row.user_id)).map((row) => [row.user_id, countsOf(row)]));
    });
  }

  days(userId: string, from: string, to: string): Promise<UsageDay[]> {
    return this.guard(async () => {
      const rows = await this.db.rows<CountsRow>(
        sql`/* usage.days */ select user_id, day::text, requests, input_tokens, output_tokens, speech_characters from usage
         where user_id = ${userId} and day between ${from}::date and ${to}::date order by day`,
      );
      return rows.map((row) => ({ date: row.day, ...countsOf(row) }));
    });
  }

  claimRequests(userId: string, window: number, wanted: number, limit: number): Promise<{ granted: number; total: number }> {
    return this.guard(async () => {
      const grant = sql`least(${wanted}::integer, greatest(0, ${limit}::integer - w.granted))`;
      const [row] = await this.db.rows<{ last_grant: number; granted: number }>(
        sql`/* usage.claim */ insert into usage_request_windows as w (user_id, window_start, granted, last_grant)
         values (${userId}, ${new Date(window)}, least(${wanted}::integer, greatest(0, ${limit}::integer)), least(${wanted}::integer, greatest(0, ${limit}::integer)))
         on conflict (user_id, window_start) do update set granted = w.granted + ${grant}, last_grant = ${grant}
         returning last_grant, granted`,
      );
      return { granted: row!.last_grant, total: row!.granted };
    });
  }

  releaseRequests(releases: { userId: string; window: number; count: number }[]): Promise<void> {
    if (releases.length === 0) return Promise.resolve();
    return this.guard(async () => {
      await this.db.changed(
        sql`/* usage.release */ update usage_request_windows w set granted = greatest(0, w.granted - r.count)
         from unnest(${releases.map((r) => r.userId)}::text[], ${releases.map((r) => new Date(r.window))}::timestamptz[], ${releases.map((r) => r.count)}::integer[])
           as r(user_id, window_start, count)
         where w.user_id = r.user_id and w.window_start = r.window_start`,
      );
    });
  }

  forgetUser(userId: string): Promise<number> {
    return this.guard(async () => {
      const [row] = await this.db.rows<{ days: string }>(
        sql`/* usage.forget */ with windows as (delete from usage_request_windows where user_id = ${userId}),
         days as (delete from usage where user_id = ${userId} returning 1)
         select count(*) as days from days`,
      );
      return Number(row!.days);
    });
  }

  /**
   * Housekeeping after a sync, whose counts are stored by then: its failure (a time-out, a lost
   * race with another instance's clean-up) must not fail the sync, whose caller would send the
   * same counts again and count them twice. The next clean-up deletes what this one left.
   */
  private async cleanOldWindows(): Promise<void> {
    if (Date.now() - this.cleanedAt < CLEAN_EVERY_MS) return;
    this.cleanedAt = Date.now();
    await this.db.changed(sql`/* usage.clean */ delete from usage_request_windows where window_start < now() - ${WINDOW_KEEP}::interval`).catch(() => undefined);
  }

  /** A database that is away is the service's 503, as for every other store call. */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw unavailableError(this.pool, error);
      throw error;
    }
  }
}

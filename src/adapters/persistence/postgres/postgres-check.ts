import type pg from 'pg';
import type { DependencyCheck, DependencyState } from '../../../application/ports/dependency-check.js';
import { isDatabaseUnavailable } from './unavailable.js';

/** Readiness of PostgreSQL: one trivial query through the pool. */
export class PostgresCheck implements DependencyCheck {
  readonly name = 'database';
  readonly required = true;

  constructor(private readonly pool: pg.Pool) {}

  async check(): Promise<DependencyState> {
    try {
      await this.pool.query('select 1');
      return { ok: true, detail: 'postgresql' };
    } catch (error) {
      return { ok: false, detail: isDatabaseUnavailable(error) ? 'postgresql is unreachable' : 'postgresql check failed' };
    }
  }
}

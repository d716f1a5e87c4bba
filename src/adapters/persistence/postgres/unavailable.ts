import type pg from 'pg';
import { DependencyUnavailableError } from '../../../domain/errors.js';

/** PostgreSQL error classes that mean "the server is not there or gave up", not "the statement is wrong". */
const UNAVAILABLE_SQLSTATES = /^(08|53|57P0|57014|3D000)/;
/** Lost races a transaction may simply run again: deadlock detected, serialization failure. */
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
/** Node's own codes for a network that refuses, drops or cannot find the server. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);

/** The SQLSTATE of an error the server sent, if it is one (looking through `cause` too). */
export function sqlStateOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Whether an error of the database layer means the database cannot be reached, went away
 * or stalled. The server's own errors (with a SQLSTATE) count only for the unavailable classes;
 * pg's and the network's errors without one — a refused or dropped connection, a timeout, a
 * client that is no longer queryable — are the database's absence, not a bug in a statement.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const state = sqlStateOf(error);
  if (state !== undefined) return UNAVAILABLE_SQLSTATES.test(state);
  if (typeof error !== 'object' || error === null) return false;
  const { name, message, code } = error as { name?: string; message?: string; code?: unknown };
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  if (name === 'TimeoutError') return true;
  return typeof message === 'string' && /Connection terminated|connection timeout|timeout expired|timeout exceeded|Query read timeout|not queryable|connection error|Cannot use a pool after calling end|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|EAI_AGAIN/i.test(message);
}

/** Transactions that lost a race may simply be run again. */
export function isRetryable(error: unknown): boolean {
  return RETRYABLE_SQLSTATES.has(sqlStateOf(error) ?? '');
}

/** A unique violation: an insert found its id taken by a statement this one's snapshot did not see (rows.ts, untilSettled). */
export function isLostInsertRace(error: unknown): boolean {
  return sqlStateOf(error) === '23505';
}

const UNAVAILABLE = 'the database is unavailable; try again shortly';
/** Every connection of the pool was in use for the whole wait (DATABASE_TIMEOUT_MS): the database answers, but not in time for this request. */
const BUSY = 'the database is busy (every connection of this instance is in use); try again shortly';

/** The 503 for an error `isDatabaseUnavailable` accepts: busy when the wait for one of `pool`'s connections timed out with all of them in use, else unavailable. */
export function unavailableError(pool: pg.Pool, error: unknown): DependencyUnavailableError {
  const waitedForPool = error instanceof Error && error.message === 'timeout exceeded when trying to connect';
  const full = waitedForPool && pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? 10);
  return new DependencyUnavailableError(full ? BUSY : UNAVAILABLE);
}

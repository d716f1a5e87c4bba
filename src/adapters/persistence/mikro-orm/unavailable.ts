import { ConnectionException, DeadlockException } from '@mikro-orm/core';

/** PostgreSQL error classes that mean "the server is not there" rather than "the query is wrong". */
const UNAVAILABLE_SQLSTATES = /^(08|53|57P0|57014)/;
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);

/** Whether an error from the database layer means the database cannot be reached or is going away. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof ConnectionException) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, message, cause } = error as { name?: string; code?: string; message?: string; cause?: unknown };
  if (name === 'KnexTimeoutError') return true;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_SQLSTATES.test(code))) return true;
  if (typeof message === 'string' && /Connection terminated|connection timeout|Query read timeout|not queryable|Client has encountered a connection error/i.test(message)) {
    return true;
  }
  return cause !== undefined && cause !== error && isDatabaseUnavailable(cause);
}

/** Transactions that lost a race may simply be run again. */
export function isRetryable(error: unknown): boolean {
  return error instanceof DeadlockException;
}

import type { UsageCounts, UsageDay } from '../../domain/usage.js';

/** Usage to add to a user's day (counts may be negative: a request given back). */
export interface UsageDelta extends UsageCounts {
  userId: string;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
}

/**
 * The usage of every user per UTC day, shared by every instance on one store, and the requests
 * granted per user and minute under a limit. Instances send it batches (never a statement per
 * request): `sync` adds what an instance counted since the last one and reads back what all of
 * them counted; `claimRequests` hands out requests of a minute's limit in blocks, atomically, so
 * instances together never grant more than the limit.
 */
export interface UsageLedger {
  /** Adds the deltas, then gives the day's totals of `users` (after adding; users with none are absent). */
  sync(deltas: UsageDelta[], day: string, users: string[]): Promise<Map<string, UsageCounts>>;
  /** The user's days from `from` to `to` (inclusive), oldest first; only days with a row. */
  days(userId: string, from: string, to: string): Promise<UsageDay[]>;
  /**
   * Grants up to `wanted` requests of the user's minute starting at `window` (ms since the epoch),
   * never more than `limit` in all for that minute across every caller: the number granted (0 when
   * the limit is reached) and how many that minute has granted in all since.
   */
  claimRequests(userId: string, window: number, wanted: number, limit: number): Promise<{ granted: number; total: number }>;
  /** Gives back requests granted but not used (their minute's count goes down by `count`). */
  releaseRequests(releases: { userId: string; window: number; count: number }[]): Promise<void>;
  /** Erases every record of the user (DELETE /api/users/{user_id}): the number of days removed. */
  forgetUser(userId: string): Promise<number>;
}

import { tokenUsage, type TokenUsage } from '../../domain/reply.js';
import { addUsage, NO_USAGE, tokensOf, utcDay, type UsageCounts, type UsageDay } from '../../domain/usage.js';
import type { Clock } from '../ports/clock.js';
import type { UsageDelta, UsageLedger } from '../ports/usage-ledger.js';
import type { UsageRecorder } from './usage-recorder.js';

export interface UsageMeterOptions {
  /** How often counts are sent to the ledger and other instances' counts read back (USAGE_SYNC_MS). */
  syncIntervalMs: number;
  /** The user's tokens per day, when limited: tokens recorded past an eighth of what is left are sent at once. */
  tokenLimitOf?: (userId: string) => number | null;
  /** Every reply's tokens, with the model that wrote it (for /metrics). */
  onTokens?: (model: string, usage: TokenUsage) => void;
  /** A timed sync that failed (the database away): its counts are kept for the next one. */
  onSyncError?: (error: unknown) => void;
}

/** Users whose tokens are read back at every sync, for this long after their last request. */
const WATCH_MS = 5 * 60_000;
/** Tokens recorded but not yet sent may reach this share of a limited user's remaining budget before a sync is started. */
const BUDGET_SHARE = 1 / 8;

interface Known {
  /** The user's tokens of `day` in the ledger, as the last sync read them (this instance's sent counts included). */
  day: string;
  tokens: number;
  checkedAt: number;
}

/**
 * This instance's side of the usage ledger. Counting is in memory (no statement per request);
 * every `syncIntervalMs` the counts made since the last sync go to the ledger in one statement,
 * which also reads back the day's tokens of the users who made requests here lately, so that a
 * token limit sees what every instance counted. A user's first request here (or first of a day)
 * waits for one sync; tokens that use up a share of a limited user's budget start one at once.
 */
export class UsageMeter implements UsageRecorder {
  private pending = new Map<string, UsageDelta>();
  /** Counts of the sync in flight: neither pending nor read back yet. */
  private sending = new Map<string, UsageDelta>();
  private readonly known = new Map<string, Known>();
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  /** Reads of the ledger waiting or under way (`days`): syncs asked for meanwhile start after the last of them. */
  private readers = 0;
  private readsEnded: { promise: Promise<void>; resolve: () => void } | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly ledger: UsageLedger,
    private readonly clock: Clock,
    private readonly options: UsageMeterOptions,
  ) {
    this.timer = setInterval(() => {
      if (this.pending.size > 0 || this.known.size > 0) this.sync().catch((error: unknown) => this.options.onSyncError?.(error));
    }, options.syncIntervalMs);
    this.timer.unref();
  }

  /** A request admitted on a limited endpoint (or, with -1, one given back: a request the client got wrong). */
  countRequest(userId: string, day: string, count: 1 | -1): void {
    this.add(userId, day, count, 0, 0, 0);
  }

  countTokens(userId: string, model: string, counted: TokenUsage): void {
    // Whatever a model adapter passed on, only whole counts are added: one bad figure would poison
    // the day's totals, the limits and every later sync of the ledger.
    const usage = tokenUsage(counted.promptTokens, counted.completionTokens, counted.totalTokens);
    if (!usage) return;
    const day = this.today();
    this.add(userId, day, 0, usage.promptTokens, usage.completionTokens, 0);
    this.options.onTokens?.(model, usage);
    const limit = this.options.tokenLimitOf?.(userId);
    if (limit == null) return;
    const stored = this.known.get(userId);
    const left = limit - (stored?.day === day ? stored.tokens : 0);
    if (this.unsentTokens(userId, day) >= left * BUDGET_SHARE) this.sync().catch((error: unknown) => this.options.onSyncError?.(error));
  }

  countSpeech(userId: string | null | undefined, characters: number): void {
    if (characters > 0) this.add(userId ?? '', this.today(), 0, 0, 0, characters);
  }

  /**
   * The user's tokens today as this instance knows them: the ledger's count at the last sync
   * plus what was counted here since. Waits for a sync only when the user is not known here yet
   * today; from then on the user's count is read back at every sync. A number at once when the
   * user is known (every request but the first: the check costs no promise).
   */
  tokensToday(userId: string): number | Promise<number> {
    const now = this.clock.now();
    const day = utcDay(now);
    const known = this.known.get(userId);
    if (known?.day === day) {
      known.checkedAt = now.getTime();
      return known.tokens + this.unsentTokens(userId, day);
    }
    this.known.set(userId, { day: '', tokens: 0, checkedAt: now.getTime() });
    return this.sync().then(() => {
      const loaded = this.known.get(userId);
      return (loaded?.day === day ? loaded.tokens : 0) + this.unsentTokens(userId, day);
    });
  }

  /**
   * The user's days from..to in the ledger, with what this instance has not sent yet. Read
   * between syncs: a sync in flight may be stored before the read or after it, and its counts
   * would be added twice or missed, so the read waits for it, and a sync asked for meanwhile
   * waits for the read.
   */
  async days(userId: string, from: string, to: string): Promise<UsageDay[]> {
    // No sync starts from now until the read has ended, so the read waits for the one in flight at
    // most (syncs one after another, as while the database stalls, kept it waiting for ever).
    this.readers++;
    try {
      if (this.running) await this.running.catch(() => undefined);
      const stored = new Map((await this.ledger.days(userId, from, to)).map(({ date, ...counts }) => [date, counts as UsageCounts]));
      for (const delta of this.pending.values()) {
        if (delta.userId !== userId || delta.day < from || delta.day > to) continue;
        stored.set(delta.day, addUsage(stored.get(delta.day) ?? NO_USAGE, delta));
      }
      return [...stored].sort(([a], [b]) => (a < b ? -1 : 1)).map(([date, counts]) => ({ date, ...counts }));
    } finally {
      if (--this.readers === 0) {
        this.readsEnded?.resolve();
        this.readsEnded = null;
      }
    }
  }

  /**
   * Erases the user's usage (DELETE /api/users/{user_id}): what was counted here is sent first, so
   * that nothing of theirs reaches the store after the erasure, then every record of theirs goes.
   */
  async forget(userId: string): Promise<number> {
    await this.sync();
    this.known.delete(userId);
    for (const [key, delta] of this.pending) if (delta.userId === userId) this.pending.delete(key);
    const forgotten = await this.ledger.forgetUser(userId);
    // Other instances sharing the ledger send what they counted for the user before the erasure
    // within a sync of theirs (and one in flight may land just after this): their records are
    // erased again once every instance has synced twice since.
    setTimeout(() => void this.ledger.forgetUser(userId).catch((error: unknown) => this.options.onSyncError?.(error)), 2 * this.options.syncIntervalMs + 500).unref();
    return forgotten;
  }

  /** Sends what was counted and reads back the watched users' tokens; one at a time, a request during one runs after it. */
  sync(): Promise<void> {
    if (this.readers > 0) {
      if (!this.readsEnded) {
        let resolve!: () => void;
        this.readsEnded = { promise: new Promise<void>((done) => (resolve = done)), resolve };
      }
      return this.readsEnded.promise.then(() => this.sync());
    }
    if (!this.running) {
      this.running = this.runSync().finally(() => (this.running = null));
      return this.running;
    }
    this.queued ??= this.running.then(
      () => this.startQueued(),
      () => this.startQueued(),
    );
    return this.queued;
  }

  /** Stops the timer and sends what is left. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.sync();
  }

  private startQueued(): Promise<void> {
    this.queued = null;
    return this.sync();
  }

  private async runSync(): Promise<void> {
    const now = this.clock.now();
    const day = utcDay(now);
    for (const [userId, known] of this.known) if (now.getTime() - known.checkedAt > WATCH_MS) this.known.delete(userId);
    const users = [...this.known.keys()];
    this.sending = this.pending;
    this.pending = new Map();
    try {
      const totals = await this.ledger.sync([...this.sending.values()], day, users);
      for (const userId of users) {
        const known = this.known.get(userId);
        if (known) Object.assign(known, { day, tokens: tokensOf(totals.get(userId) ?? NO_USAGE) });
      }
    } catch (error) {
      for (const delta of this.sending.values()) this.add(delta.userId, delta.day, delta.requests, delta.inputTokens, delta.outputTokens, delta.speechCharacters);
      throw error;
    } finally {
      this.sending = new Map();
    }
  }

  /** Adds to the user's pending counts of the day (counted on every request: changed in place, not copied). */
  private add(userId: string, day: string, requests: number, inputTokens: number, outputTokens: number, speechCharacters: number): void {
    const key = `${userId}\n${day}`;
    const delta = this.pending.get(key);
    if (!delta) {
      this.pending.set(key, { userId, day, requests, inputTokens, outputTokens, speechCharacters });
      return;
    }
    delta.requests += requests;
    delta.inputTokens += inputTokens;
    delta.outputTokens += outputTokens;
    delta.speechCharacters += speechCharacters;
  }

  private unsentTokens(userId: string, day: string): number {
    const key = `${userId}\n${day}`;
    return tokensOf(this.pending.get(key) ?? NO_USAGE) + tokensOf(this.sending.get(key) ?? NO_USAGE);
  }

  private today(): string {
    return utcDay(this.clock.now());
  }
}

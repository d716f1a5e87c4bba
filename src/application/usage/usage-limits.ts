import { UsageLimitReachedError } from '../../domain/errors.js';
import { msUntilNextDay, utcDay } from '../../domain/usage.js';
import type { Clock } from '../ports/clock.js';
import type { UserLimits } from '../ports/user-limits.js';
import type { LimitState, RequestAllowances, Taken } from './request-allowances.js';
import type { UsageMeter } from './usage-meter.js';

export type { LimitState } from './request-allowances.js';

/** A request to a limited endpoint, let in or refused, with the state of each limit of its user. */
export interface Admission {
  userId: string;
  /** The UTC day it was counted on. */
  day: string;
  /** Requests per minute, when the user has that limit. */
  requests: LimitState | null;
  /** Tokens per day, when the user has that limit. */
  tokens: LimitState | null;
  /** Why it was refused (429); null when it was let in and counted. */
  refused: UsageLimitReachedError | null;
  /** The minute whose request it took (to give back), when limited by requests. */
  window: number | null;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * The gate of the limited endpoints (chat, responses, speech): counts each request a user makes
 * there, and with limits on (LIMIT_REQUESTS_PER_MINUTE, LIMIT_TOKENS_PER_DAY, LIMITS_FILE)
 * refuses one over a limit. A refused request counts for nothing; one given back (`refund`, for a
 * request the client got wrong) neither. Requests per minute never exceed the limit across
 * instances (RequestAllowances); tokens per day are checked against what this instance knows of
 * the day's tokens (UsageMeter), so a limit crossed elsewhere shows here within a sync or two.
 */
export class UsageLimits {
  constructor(
    private readonly limits: UserLimits,
    private readonly meter: UsageMeter,
    private readonly allowances: RequestAllowances,
    private readonly clock: Clock,
  ) {}

  /** Whether any limit is configured (else every request is let in, and only counted). */
  get enabled(): boolean {
    return this.limits.enabled;
  }

  /**
   * Lets the request in (and counts it) or refuses it. `usesModel`: the token limit applies (chat,
   * responses), not only the request limit. At once (no promise) when nothing needs the ledger:
   * the user's tokens are known here and this instance holds requests of the user's minute.
   */
  admit(userId: string, usesModel: boolean): Admission | Promise<Admission> {
    const now = this.clock.now();
    const day = utcDay(now);
    if (!this.limits.enabled) {
      this.meter.countRequest(userId, day, 1);
      return { userId, day, requests: null, tokens: null, refused: null, window: null };
    }
    const { requestsPerMinute, tokensPerDay } = this.limits.limitsFor(userId);
    if (tokensPerDay === null) return this.takeRequest(userId, day, requestsPerMinute, null);
    const used = this.meter.tokensToday(userId);
    if (typeof used !== 'number') return used.then(() => this.admit(userId, usesModel));
    const tokens = { limit: tokensPerDay, remaining: Math.max(0, tokensPerDay - used), resetMs: msUntilNextDay(now) };
    if (!usesModel || used < tokensPerDay) return this.takeRequest(userId, day, requestsPerMinute, tokens);
    const requests = requestsPerMinute === null ? null : this.allowances.peek(userId, requestsPerMinute);
    const message =
      tokensPerDay === 0
        ? 'token limit reached: this user may use no tokens (a limit of 0 a day); waiting does not help'
        : `token limit reached: ${tokensPerDay} tokens per day for this user; try again in ${seconds(tokens.resetMs)} s (the day starts again at midnight UTC)`;
    return { userId, day, requests, tokens, refused: new UsageLimitReachedError('tokens', tokens.resetMs, message), window: null };
  }

  private takeRequest(userId: string, day: string, limit: number | null, tokens: LimitState | null): Admission | Promise<Admission> {
    if (limit === null) {
      this.meter.countRequest(userId, day, 1);
      return { userId, day, requests: null, tokens, refused: null, window: null };
    }
    const taken = this.allowances.take(userId, limit);
    return taken instanceof Promise ? taken.then((t) => this.taken(userId, day, limit, tokens, t)) : this.taken(userId, day, limit, tokens, taken);
  }

  private taken(userId: string, day: string, limit: number, tokens: LimitState | null, taken: Taken): Admission {
    if (!taken.granted) {
      const message =
        limit === 0
          ? 'rate limit reached: this user may make no requests (a limit of 0 a minute); waiting does not help'
          : `rate limit reached: ${limit} requests per minute for this user; try again in ${seconds(taken.state.resetMs)} s`;
      return { userId, day, requests: taken.state, tokens, refused: new UsageLimitReachedError('requests', taken.state.resetMs, message), window: null };
    }
    this.meter.countRequest(userId, day, 1);
    return { userId, day, requests: taken.state, tokens, refused: null, window: taken.window };
  }

  /** A request let in that the client got wrong (a 4xx): it counts for nothing after all. */
  refund(admission: Admission): void {
    if (admission.refused) return;
    this.meter.countRequest(admission.userId, admission.day, -1);
    if (admission.window !== null) this.allowances.giveBack(admission.userId, admission.window);
  }
}

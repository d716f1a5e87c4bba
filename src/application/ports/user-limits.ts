/** A user's limits; null: none. */
export interface LimitValues {
  requestsPerMinute: number | null;
  tokensPerDay: number | null;
}

/** The limits that apply to each user: the configured defaults, and per-user overrides. */
export interface UserLimits {
  /** Whether any limit is configured at all (LIMIT_* or LIMITS_FILE); off by default. */
  readonly enabled: boolean;
  limitsFor(userId: string): LimitValues;
}

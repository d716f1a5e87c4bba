import { z } from 'zod';
import { integer, optionalText } from './environment-fields.js';

/** The usage and limits settings, spread into the environment schema of config.ts. */
export const LIMITS_ENVIRONMENT = {
  LIMIT_REQUESTS_PER_MINUTE: integer(1, 1_000_000_000).optional(),
  LIMIT_TOKENS_PER_DAY: integer(1, 1_000_000_000_000).optional(),
  LIMITS_FILE: optionalText,
  USAGE_SYNC_MS: integer(50, 60_000).default(1000),
};

type LimitsEnvironment = z.output<z.ZodObject<typeof LIMITS_ENVIRONMENT>>;

export interface LimitsConfig {
  /** Per user; null: no limit (the default). */
  requestsPerMinute: number | null;
  tokensPerDay: number | null;
  /** Per-user overrides (JSON), re-read when it changes. */
  file: string | undefined;
  /** How often each instance sends its counts to the store and reads the others' back. */
  syncIntervalMs: number;
}

export function limitsConfigFrom(env: LimitsEnvironment): LimitsConfig {
  return {
    requestsPerMinute: env.LIMIT_REQUESTS_PER_MINUTE ?? null,
    tokensPerDay: env.LIMIT_TOKENS_PER_DAY ?? null,
    file: env.LIMITS_FILE,
    syncIntervalMs: env.USAGE_SYNC_MS,
  };
}

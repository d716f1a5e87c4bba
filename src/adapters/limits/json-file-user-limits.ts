import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { LimitValues, UserLimits } from '../../application/ports/user-limits.js';
import { isValidClientId } from '../../domain/ids.js';

/** A limits file that cannot be used; the message names the file and the problem. */
export class LimitsFileInvalidError extends Error {
  override readonly name = 'LimitsFileInvalidError';
}

const limit = z.number().int().min(0).max(1_000_000_000_000).nullable();
const overrideSchema = z.strictObject({ requests_per_minute: limit.optional(), tokens_per_day: limit.optional() });

/**
 * `LIMITS_FILE`: per-user overrides of the limits, e.g.
 * `{"users": {"alice": {"requests_per_minute": 100, "tokens_per_day": null}}}` — a number is the
 * user's limit, null lifts it, an absent field keeps the default (LIMIT_REQUESTS_PER_MINUTE,
 * LIMIT_TOKENS_PER_DAY).
 */
export const limitsFileSchema = z.strictObject({
  users: z.record(z.string().refine(isValidClientId, 'must be user ids (1..128 characters, no control characters)'), overrideSchema),
});

type Override = z.infer<typeof overrideSchema>;

/**
 * The limits of each user: the defaults from the environment, and the overrides of a JSON file.
 * The file is read at start-up (a broken one stops it) and again by `reload` when it changes; a
 * broken new version is refused and the one before stays in force.
 */
export class JsonFileUserLimits implements UserLimits {
  private overrides: Map<string, Override>;

  constructor(
    private readonly defaults: LimitValues,
    private readonly file: string | undefined,
  ) {
    this.overrides = file === undefined ? new Map() : readOverrides(file);
  }

  get enabled(): boolean {
    return this.defaults.requestsPerMinute !== null || this.defaults.tokensPerDay !== null || this.file !== undefined;
  }

  limitsFor(userId: string): LimitValues {
    const override = this.overrides.get(userId);
    if (!override) return this.defaults;
    return {
      requestsPerMinute: override.requests_per_minute === undefined ? this.defaults.requestsPerMinute : override.requests_per_minute,
      tokensPerDay: override.tokens_per_day === undefined ? this.defaults.tokensPerDay : override.tokens_per_day,
    };
  }

  /** Reads the file again: the number of users it names, or a LimitsFileInvalidError (the old overrides stay). */
  reload(): number {
    if (this.file === undefined) return 0;
    this.overrides = readOverrides(this.file);
    return this.overrides.size;
  }

  get usersNamed(): number {
    return this.overrides.size;
  }
}

function readOverrides(file: string): Map<string, Override> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = error instanceof SyntaxError ? `not valid JSON (${error.message})` : `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    throw new LimitsFileInvalidError(`LIMITS_FILE ${file}: ${reason}`);
  }
  const parsed = limitsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? issue.path.map(String).join('.') : 'the file';
    throw new LimitsFileInvalidError(`LIMITS_FILE ${file}: ${where} ${issue.message}`);
  }
  return new Map(Object.entries(parsed.data.users));
}

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
  users: z.record(z.string().refine(isValidClientId), overrideSchema, {
    error: (issue) => (issue.code === 'invalid_key' ? `names ${JSON.stringify(issue.input)}, which is no user id (1..128 characters, no control characters)` : undefined),
  }),
});

type Override = z.infer<typeof overrideSchema>;

/**
 * The limits of each user: the defaults from the environment, and the overrides of a JSON file.
 * The file is read at start-up (a broken one stops it) and again by `reload` when it changes; a
 * broken new version is refused and the one before stays in force.
 */
export class JsonFileUserLimits implements UserLimits {
  private overrides: Map<string, Override>;
  /** The text the overrides were read from: a folder that changed around an unchanged file reads nothing new. */
  private text: string | undefined;
  private refused: string | undefined;

  constructor(
    private readonly defaults: LimitValues,
    private readonly file: string | undefined,
  ) {
    this.overrides = new Map();
    if (file !== undefined) [this.overrides, this.text] = parseOverrides(file, readText(file));
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

  /**
   * Reads the file again: the number of users it names, null when its text is the one in force
   * (or the one last refused), or a LimitsFileInvalidError (the old overrides stay in force).
   */
  reload(): number | null {
    if (this.file === undefined) return null;
    const text = readText(this.file);
    const seen = text.ok ? text.text : `\0unreadable: ${text.code}`;
    if (seen === this.text || seen === this.refused) return null;
    try {
      [this.overrides, this.text] = parseOverrides(this.file, text);
    } catch (error) {
      this.refused = seen;
      throw error;
    }
    this.refused = undefined;
    return this.overrides.size;
  }

  get usersNamed(): number {
    return this.overrides.size;
  }
}

type FileText = { ok: true; text: string } | { ok: false; code: string };

function readText(file: string): FileText {
  try {
    return { ok: true, text: readFileSync(file, 'utf8') };
  } catch (error) {
    return { ok: false, code: (error as NodeJS.ErrnoException).code ?? 'error' };
  }
}

function parseOverrides(file: string, read: FileText): [Map<string, Override>, string] {
  if (!read.ok) throw new LimitsFileInvalidError(`LIMITS_FILE ${file}: cannot be read (${read.code})`);
  let json: unknown;
  try {
    json = JSON.parse(read.text);
  } catch (error) {
    throw new LimitsFileInvalidError(`LIMITS_FILE ${file}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = limitsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // A bad key is named in the message; the path stops at its record.
    const path = issue.code === 'invalid_key' ? issue.path.slice(0, -1) : issue.path;
    const where = path.length ? path.map(String).join('.') : 'the file';
    throw new LimitsFileInvalidError(`LIMITS_FILE ${file}: ${where} ${issue.message}`);
  }
  return [new Map(Object.entries(parsed.data.users)), read.text];
}

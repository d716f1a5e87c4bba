import { FieldInvalidError } from './errors.js';
import { hasUnstorableCharacters, storableText, UNSTORABLE_RULE, utf8Length } from './text.js';

/** Free-form JSON object attached to messages and sessions. */
export type Metadata = Record<string, unknown>;

/** Whether a parsed JSON value is an object (not null, not an array). */
export const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export const MAX_METADATA_BYTES = 16_384;
export const MAX_METADATA_DEPTH = 16;

const DEPTH_RULE = `must not be nested deeper than ${MAX_METADATA_DEPTH} levels`;
const STRINGS_RULE = `keys and strings ${UNSTORABLE_RULE}`;
const NUMBERS_RULE = 'numbers must be within the range of a double (1e400 is not)';

/** The first problem of a JSON value at `depth`: nested too deep, a key or string no store can keep, or a number out of range (JSON's 1e400 parses as Infinity, and would be stored as null). */
function problemIn(value: unknown, depth: number): string | null {
  if (typeof value === 'string') return hasUnstorableCharacters(value) ? STRINGS_RULE : null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : NUMBERS_RULE;
  if (value === null || typeof value !== 'object') return null;
  const entries = Object.entries(value);
  if (depth >= MAX_METADATA_DEPTH && entries.length > 0) return DEPTH_RULE;
  for (const [key, child] of entries) {
    if (hasUnstorableCharacters(key)) return STRINGS_RULE;
    const problem = problemIn(child, depth + 1);
    if (problem !== null) return problem;
  }
  return null;
}

/** A plain JSON object, bounded in size and nesting, whose every key and string can be stored and compared safely. */
export function assertMetadata(value: unknown, field = 'metadata'): Metadata {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new FieldInvalidError(field, 'must be a JSON object');
  }
  // Walked before stringifying: the depth bound keeps JSON.stringify from recursing without end.
  const problem = problemIn(value, 0);
  if (problem !== null) throw new FieldInvalidError(field, problem);
  const bytes = utf8Length(JSON.stringify(value));
  if (bytes > MAX_METADATA_BYTES) {
    throw new FieldInvalidError(field, `must be at most ${MAX_METADATA_BYTES} bytes as JSON`);
  }
  return value as Metadata;
}

/**
 * Metadata the service did not take from a client (an import's): each NUL and lone surrogate in its
 * keys and strings becomes U+FFFD, as in an imported text, and a number out of range (1e400) null. What lies deeper than the bound is left
 * as it is (assertMetadata refuses it).
 */
export function storableMetadata<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (typeof value === 'number' && !Number.isFinite(value)) return null as T; // what JSON makes of it
  if (value === null || typeof value !== 'object' || depth > MAX_METADATA_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => storableMetadata(item, depth + 1)) as T;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [storableText(key), storableMetadata(item, depth + 1)])) as T;
}

/** Whether two JSON values are equal, whatever the order of their keys (jsonb keeps its own order). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => Object.hasOwn(b, key) && jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

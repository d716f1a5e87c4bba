import { FieldInvalidError } from './errors.js';

/** Free-form JSON object attached to messages and sessions. */
export type Metadata = Record<string, unknown>;

export const MAX_METADATA_BYTES = 16_384;
export const MAX_METADATA_DEPTH = 16;

function depthOf(value: unknown, limit: number, depth = 0): number {
  if (depth > limit || value === null || typeof value !== 'object') return depth;
  let deepest = depth;
  for (const child of Object.values(value as object)) {
    deepest = Math.max(deepest, depthOf(child, limit, depth + 1));
    if (deepest > limit) break;
  }
  return deepest;
}

/** A plain JSON object, bounded in size and nesting so it can be stored and compared safely. */
export function assertMetadata(value: unknown, field = 'metadata'): Metadata {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new FieldInvalidError(field, 'must be a JSON object');
  }
  if (depthOf(value, MAX_METADATA_DEPTH) > MAX_METADATA_DEPTH) {
    throw new FieldInvalidError(field, `must not be nested deeper than ${MAX_METADATA_DEPTH} levels`);
  }
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  if (bytes > MAX_METADATA_BYTES) {
    throw new FieldInvalidError(field, `must be at most ${MAX_METADATA_BYTES} bytes as JSON`);
  }
  return value as Metadata;
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

import { FieldInvalidError } from './errors.js';
import { codePointLength, hasControlCharacters } from './text.js';

export const MAX_ID_LENGTH = 128;
export const ID_RULE = `must be a string of 1..${MAX_ID_LENGTH} characters without control characters`;

export function isValidClientId(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const length = codePointLength(value);
  return length >= 1 && length <= MAX_ID_LENGTH && !hasControlCharacters(value);
}

/** Ids sent by clients: user_id, conversation_id, message_id, session_id. */
export function assertClientId(value: unknown, field: string): string {
  if (!isValidClientId(value)) throw new FieldInvalidError(field, ID_RULE);
  return value;
}

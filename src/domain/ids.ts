import { FieldInvalidError } from './errors.js';
import { atMostCodePoints, hasControlCharacters, hasUnstorableCharacters, UNSTORABLE_RULE } from './text.js';

export const MAX_ID_LENGTH = 128;
export const ID_RULE = `must be a string of 1..${MAX_ID_LENGTH} characters without control characters`;

/** What is wrong with a client-supplied id (ID_RULE or UNSTORABLE_RULE), or null when nothing is. */
export function clientIdProblem(value: unknown): string | null {
  if (typeof value !== 'string') return ID_RULE;
  if (value.length === 0 || !atMostCodePoints(value, MAX_ID_LENGTH) || hasControlCharacters(value)) return ID_RULE;
  return hasUnstorableCharacters(value) ? UNSTORABLE_RULE : null;
}

export function isValidClientId(value: unknown): value is string {
  return clientIdProblem(value) === null;
}

/** Ids sent by clients: user_id, conversation_id, message_id, session_id. */
export function assertClientId(value: unknown, field: string): string {
  const problem = clientIdProblem(value);
  if (problem !== null) throw new FieldInvalidError(field, problem);
  return value as string;
}

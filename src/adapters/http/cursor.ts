import type { ConversationPosition } from '../../application/ports/conversation-repository.js';
import type { BranchPosition, MessagePosition, SortOrder } from '../../application/ports/message-repository.js';
import type { SearchPosition } from '../../application/ports/message-search.js';
import { createHash } from 'node:crypto';
import { FieldInvalidError } from '../../domain/errors.js';
import { isStorableInstant } from '../../domain/instants.js';
import { isWellFormed } from '../../domain/text.js';

/**
 * Opaque page cursors. A cursor records what it was made for (`scope`: the kind of list,
 * the conversation or user, the order), so one made for another list is refused.
 */
export type CursorKey = [number, string | number];
type KeyPart = 'number' | 'string';

interface CursorBody {
  v: 1;
  s: string;
  k: (string | number)[];
}

export function encodeCursor(scope: string, key: (string | number)[]): string {
  const body: CursorBody = { v: 1, s: scope, k: key };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

const UNREADABLE = 'is not a cursor returned by this endpoint';

/** The instant a cursor's key holds: one the store keeps (a stored row's), or the cursor was not made here. */
function instantOf(time: number): Date {
  if (!isStorableInstant(time)) throw new FieldInvalidError('cursor', UNREADABLE);
  return new Date(time);
}

/** The key of a cursor made for `scope`, whose second part has type `tiebreak`. */
export function decodeCursor(cursor: string, scope: string, tiebreak: 'number'): [number, number];
export function decodeCursor(cursor: string, scope: string, tiebreak: 'string'): [number, string];
export function decodeCursor(cursor: string, scope: string, tiebreak: KeyPart): CursorKey {
  return decodeCursorKey(cursor, scope, ['number', tiebreak]) as CursorKey;
}

/** The key of a cursor made for `scope`, whose parts have the types of `shape` (numbers are safe integers). */
export function decodeCursorKey(cursor: string, scope: string, shape: KeyPart[]): (string | number)[] {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new FieldInvalidError('cursor', UNREADABLE);
  }
  if (!isCursorBody(body, shape)) throw new FieldInvalidError('cursor', UNREADABLE);
  if (body.s !== scope) {
    throw new FieldInvalidError('cursor', 'was made for another conversation, user, order or query');
  }
  return body.k;
}

function isCursorBody(value: unknown, shape: KeyPart[]): value is CursorBody {
  if (typeof value !== 'object' || value === null) return false;
  const { v, s, k } = value as Partial<CursorBody>;
  return (
    v === 1 &&
    typeof s === 'string' &&
    Array.isArray(k) &&
    k.length === shape.length &&
    // A lone surrogate was never in a cursor made here, and PostgreSQL would refuse it (NUL separates ids within a part: see the decoders).
    k.every((part, i) => (shape[i] === 'number' ? Number.isSafeInteger(part) : typeof part === 'string' && isWellFormed(part)))
  );
}

/** Cursors of a conversation's messages in one order: the position of the last message of a page. */
export const messageCursor = {
  encode(conversationId: string, order: SortOrder, position: MessagePosition): string {
    return encodeCursor(`messages:${order}:${conversationId}`, [position.createdAt.getTime(), position.seq]);
  },
  decode(cursor: string, conversationId: string, order: SortOrder): MessagePosition {
    const [time, seq] = decodeCursor(cursor, `messages:${order}:${conversationId}`, 'number');
    return { createdAt: instantOf(time), seq };
  },
};

/**
 * Cursors of a branch of a conversation, in one order: the branch (its last message) and the last
 * message of a page. The branch travels in the cursor, so a page keeps to it when the head moves.
 */
export const branchCursor = {
  encode(conversationId: string, order: SortOrder, position: BranchPosition): string {
    // Ids hold no control characters, so NUL separates them; an empty third: the last message had no parent.
    const parent = position.afterParentId === undefined ? [] : [position.afterParentId ?? ''];
    return encodeCursor(`branch:${order}:${conversationId}`, [0, [position.leafId, position.afterId, ...parent].join('\u0000')]);
  },
  decode(cursor: string, conversationId: string, order: SortOrder): BranchPosition {
    const [, ids] = decodeCursor(cursor, `branch:${order}:${conversationId}`, 'string');
    // Two ids: a cursor of an earlier version, which did not carry the parent.
    const [leafId, afterId, afterParentId, extra] = ids.split('\u0000');
    if (leafId === undefined || afterId === undefined || extra !== undefined || leafId === '' || afterId === '') {
      throw new FieldInvalidError('cursor', UNREADABLE);
    }
    return afterParentId === undefined ? { leafId, afterId } : { leafId, afterId, afterParentId: afterParentId === '' ? null : afterParentId };
  },
};

/** Cursors of a user's conversation list (archived or not): the position of the last conversation of a page. */
export const conversationCursor = {
  encode(userId: string, archived: boolean, position: ConversationPosition): string {
    // Ids hold no control characters, so NUL separates the pinned mark from the id.
    return encodeCursor(`conversations:${archived ? 'archived' : 'listed'}:${userId}`, [position.activeAt.getTime(), `${position.pinned ? 'p' : 'u'}\u0000${position.conversationId}`]);
  },
  decode(cursor: string, userId: string, archived: boolean): ConversationPosition {
    const [time, key] = decodeCursor(cursor, `conversations:${archived ? 'archived' : 'listed'}:${userId}`, 'string');
    const [mark, conversationId, extra] = key.split('\u0000');
    if ((mark !== 'p' && mark !== 'u') || !conversationId || extra !== undefined) throw new FieldInvalidError('cursor', UNREADABLE);
    return { pinned: mark === 'p', activeAt: instantOf(time), conversationId };
  },
};

/**
 * Cursors of a search's results: the position of the last result of a page (its stage too), for
 * the same user, query and filters only (named by a digest, so the cursor stays short).
 */
export const searchCursor = {
  scope(request: Record<string, unknown>): string {
    return `search:${createHash('sha256').update(JSON.stringify(request)).digest('base64url').slice(0, 22)}`;
  },
  encode(scope: string, position: SearchPosition): string {
    return encodeCursor(scope, [position.stage, position.rank, position.createdAt.getTime(), position.messageId]);
  },
  decode(cursor: string, scope: string): SearchPosition {
    const [stage, rank, time, messageId] = decodeCursorKey(cursor, scope, ['string', 'number', 'number', 'string']);
    // A message id holds no NUL (nor any control character).
    if ((stage !== 'words' && stage !== 'loose') || (messageId as string).includes('\u0000')) throw new FieldInvalidError('cursor', UNREADABLE);
    return { stage, rank: rank as number, createdAt: instantOf(time as number), messageId: messageId as string };
  },
};

import type { Conversation } from '../../../domain/conversation.js';
import type { Message } from '../../../domain/message.js';
import type { Session } from '../../../domain/session.js';
import type { User } from '../../../domain/user.js';

export interface StoredMessage {
  message: Message;
  /** Insertion order, the tie-breaker after created_at. */
  seq: number;
}

export interface StoredConversation {
  conversation: Conversation;
  activeAt: Date;
}

/** Everything the in-memory adapters keep; one instance is one database. */
export class MemoryStore {
  readonly users = new Map<string, User>();
  readonly conversations = new Map<string, StoredConversation>();
  readonly messages = new Map<string, StoredMessage>();
  /** Per conversation, its messages sorted by (created_at, seq). */
  readonly timelines = new Map<string, StoredMessage[]>();
  /** Assistant reply id by the user message id it answers. */
  readonly replies = new Map<string, string>();
  readonly sessions = new Map<string, Session>();
  private lastSeq = 0;

  nextSeq(): number {
    return ++this.lastSeq;
  }
}

/** Comparison of two messages' positions in their conversation's order. */
export function compareEntries(a: { createdAt: Date; seq: number }, b: { createdAt: Date; seq: number }): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || a.seq - b.seq;
}

/** Index of the first entry in sorted `list` whose position is after `key`. */
export function firstAfter(list: StoredMessage[], key: { createdAt: Date; seq: number }): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const entry = list[mid]!;
    if (compareEntries({ createdAt: entry.message.createdAt, seq: entry.seq }, key) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

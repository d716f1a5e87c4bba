import type { ResponseEnding } from '../../../application/ports/response-repository.js';
import type { Conversation, TitleSource } from '../../../domain/conversation.js';
import type { Message } from '../../../domain/message.js';
import type { Session } from '../../../domain/session.js';
import type { User } from '../../../domain/user.js';

/** The key of a parent's children in `MemoryStore.children` (a first message's parent is ''). */
export const childrenKey = (conversationId: string, parentId: string | null): string => `${conversationId}\u0000${parentId ?? ''}`;

export interface StoredMessage {
  message: Message;
  /** Insertion order, the tie-breaker after created_at. */
  seq: number;
}

export interface StoredConversation {
  conversation: Conversation;
  activeAt: Date;
  /** The last message of the active branch. */
  headId: string | null;
  title: string | null;
  titleSource: TitleSource | null;
  /** The reply that named it (ReplyRepository.finishAndName), if one did. */
  titledBy?: string | null;
  pinned: boolean;
  archived: boolean;
}

/** Everything the in-memory adapters keep; one instance is one database. */
export class MemoryStore {
  readonly users = new Map<string, User>();
  readonly conversations = new Map<string, StoredConversation>();
  readonly messages = new Map<string, StoredMessage>();
  /** Per conversation, its messages sorted by (created_at, seq). */
  readonly timelines = new Map<string, StoredMessage[]>();
  /** Assistant reply ids by the user message id they answer, in creation order (the latest last). */
  readonly replies = new Map<string, string[]>();
  /** Per conversation and parent (`childrenKey`), its children sorted by (created_at, seq): siblings. */
  readonly children = new Map<string, StoredMessage[]>();
  readonly sessions = new Map<string, Session>();
  /** Session ids by conversation, so a conversation's sessions are found without a scan. */
  readonly sessionsOf = new Map<string, Set<string>>();
  /** How many stored conversations each user has: a dropped user's last one takes the user along. */
  readonly conversationCounts = new Map<string, number>();
  /**
   * Conversation ids, least recently written first: a Map keeps insertion order, and a write
   * moves its conversation to the end, so both the move and finding the oldest are O(1).
   */
  readonly recency = new Map<string, true>();
  /** Replies that ended before their first piece (ResponseRepository.findEnding), by id. */
  readonly endings = new Map<string, ResponseEnding>();
  /** Their ids by conversation: they go with it. */
  readonly endingsOf = new Map<string, Set<string>>();
  private lastSeq = 0;

  nextSeq(): number {
    return ++this.lastSeq;
  }

  /** A write to the conversation: it becomes the most recently active. */
  noteActivity(conversationId: string): void {
    this.recency.delete(conversationId);
    this.recency.set(conversationId, true);
  }

  addEnding(ending: ResponseEnding): void {
    this.endings.set(ending.responseId, ending);
    let ofConversation = this.endingsOf.get(ending.conversationId);
    if (!ofConversation) this.endingsOf.set(ending.conversationId, (ofConversation = new Set()));
    ofConversation.add(ending.responseId);
  }

  removeEnding(responseId: string): ResponseEnding | undefined {
    const ending = this.endings.get(responseId);
    if (!ending) return undefined;
    this.endings.delete(responseId);
    const ofConversation = this.endingsOf.get(ending.conversationId)!;
    ofConversation.delete(responseId);
    if (ofConversation.size === 0) this.endingsOf.delete(ending.conversationId);
    return ending;
  }

  /** Removes a conversation's endings (it is going): they are returned, to be put back by an undo. */
  takeEndings(conversationId: string): ResponseEnding[] {
    return [...(this.endingsOf.get(conversationId) ?? [])].map((id) => this.removeEnding(id)!);
  }

  addConversation(stored: StoredConversation): void {
    const { conversationId, userId } = stored.conversation;
    this.conversations.set(conversationId, stored);
    this.conversationCounts.set(userId, (this.conversationCounts.get(userId) ?? 0) + 1);
    this.noteActivity(conversationId);
  }

  /**
   * Removes the conversation record, not its messages or sessions. `forgetUser`: and its user,
   * when it was their last (dropping; an undone claim removes the user it made itself).
   */
  removeConversation(conversationId: string, forgetUser: boolean): void {
    const stored = this.conversations.get(conversationId);
    if (stored) {
      this.conversations.delete(conversationId);
      const { userId } = stored.conversation;
      const left = (this.conversationCounts.get(userId) ?? 1) - 1;
      if (left > 0) this.conversationCounts.set(userId, left);
      else {
        this.conversationCounts.delete(userId);
        if (forgetUser) this.users.delete(userId);
      }
    }
    if (!this.timelines.has(conversationId) && !this.sessionsOf.has(conversationId)) this.recency.delete(conversationId);
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

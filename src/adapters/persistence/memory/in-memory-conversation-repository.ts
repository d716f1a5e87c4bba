import type { ConversationPage, ConversationPosition, ConversationRepository, ConversationSummary, Deleted, Expiry } from '../../../application/ports/conversation-repository.js';
import type { ConversationName } from '../../../application/ports/reply-repository.js';
import { shownTitle, type Conversation, type ConversationChanges, type TitleSource } from '../../../domain/conversation.js';
import { compareCodePoints } from '../../../domain/text.js';
import { User } from '../../../domain/user.js';
import { dropConversation } from './memory-bound.js';
import type { MemoryStore, StoredConversation } from './memory-store.js';
import type { UndoLog } from './undo-log.js';

/** Pinned first, then most recently active; ties by conversation id, descending (by code point, as PostgreSQL's "C" collation). */
function comesBefore(a: ConversationPosition, b: ConversationPosition): boolean {
  if (a.pinned !== b.pinned) return a.pinned;
  const byTime = b.activeAt.getTime() - a.activeAt.getTime();
  return byTime < 0 || (byTime === 0 && compareCodePoints(a.conversationId, b.conversationId) > 0);
}

const positionOf = (s: StoredConversation): ConversationPosition => ({ pinned: s.pinned, activeAt: s.activeAt, conversationId: s.conversation.conversationId });

export class InMemoryConversationRepository implements ConversationRepository {
  constructor(
    private readonly store: MemoryStore,
    private readonly undo: UndoLog,
  ) {}

  async findById(conversationId: string): Promise<Conversation | null> {
    return this.store.conversations.get(conversationId)?.conversation ?? null;
  }

  async summary(conversationId: string): Promise<ConversationSummary | null> {
    const stored = this.store.conversations.get(conversationId);
    return stored ? this.summarize(stored) : null;
  }

  /** Stores the conversation (and its user) unless one with that id exists; the stored one. For the memory store's own use. */
  async claim(conversation: Conversation): Promise<Conversation> {
    const existing = this.store.conversations.get(conversation.conversationId);
    if (existing) return existing.conversation;
    const { userId } = conversation;
    if (!this.store.users.has(userId)) {
      this.store.users.set(userId, User.restore({ userId, createdAt: conversation.createdAt }));
      this.undo.record(() => this.store.users.delete(userId));
    }
    this.store.addConversation({ conversation, activeAt: conversation.createdAt, headId: null, title: null, titleSource: null, pinned: false, archived: false });
    this.undo.record(() => this.store.removeConversation(conversation.conversationId, false));
    return conversation;
  }

  /** For the memory store's own use. */
  async touch(conversationId: string, at: Date): Promise<void> {
    this.store.noteActivity(conversationId);
    const stored = this.store.conversations.get(conversationId);
    if (!stored || stored.activeAt >= at) return;
    const previous = stored.activeAt;
    stored.activeAt = at;
    this.undo.record(() => (stored.activeAt = previous));
  }

  async listByUser(userId: string, limit: number, after: ConversationPosition | null, archived: boolean): Promise<ConversationPage> {
    const mine = [...this.store.conversations.values()]
      .filter((s) => s.conversation.userId === userId && !s.conversation.temporary && s.archived === archived && (!after || comesBefore(after, positionOf(s))))
      .sort((a, b) => (comesBefore(positionOf(a), positionOf(b)) ? -1 : 1));
    const page = mine.slice(0, limit);
    const last = page.at(-1);
    return { items: page.map((s) => this.summarize(s)), next: mine.length > limit && last ? positionOf(last) : null };
  }

  async update(conversationId: string, userId: string, changes: ConversationChanges): Promise<ConversationSummary | null> {
    const stored = this.store.conversations.get(conversationId);
    if (!stored?.conversation.isOwnedBy(userId)) return null;
    const previous = { ...stored };
    if (changes.title !== undefined) Object.assign(stored, changes.title === null ? { title: null, titleSource: null } : { title: changes.title, titleSource: 'user' });
    if (changes.pinned !== undefined) stored.pinned = changes.pinned;
    if (changes.archived !== undefined) stored.archived = changes.archived;
    this.undo.record(() => Object.assign(stored, previous));
    return this.summarize(stored);
  }

  async nameUnlessUserDid(conversationId: string, title: string, source: TitleSource): Promise<boolean> {
    const stored = this.store.conversations.get(conversationId);
    if (!stored || stored.titleSource === 'user' || (source !== 'generated' && stored.titleSource !== null)) return false;
    this.name(stored, title, source);
    return true;
  }

  /** For the memory store's own use: names the conversation with its first finished reply, `replyId` (ReplyRepository.finishAndName), when nothing named it yet; whether it did. */
  nameIfUntitled(conversationId: string, title: string, source: TitleSource, replyId: string): boolean {
    const stored = this.store.conversations.get(conversationId);
    if (!stored || stored.titleSource !== null) return false;
    this.name(stored, title, source, replyId);
    return true;
  }

  async namedBy(replies: readonly { conversationId: string; replyId: string }[]): Promise<Map<string, ConversationName>> {
    const named = new Map<string, ConversationName>();
    for (const { conversationId, replyId } of replies) {
      const stored = this.store.conversations.get(conversationId);
      if (stored?.titledBy === replyId && stored.title !== null && stored.titleSource !== null && stored.titleSource !== 'user') named.set(replyId, { title: stored.title, source: stored.titleSource });
    }
    return named;
  }

  async deleteOwned(conversationId: string, userId: string): Promise<Deleted> {
    const stored = this.store.conversations.get(conversationId);
    if (!stored?.conversation.isOwnedBy(userId)) return { conversations: 0, messages: 0, sessions: 0 };
    return this.drop(conversationId);
  }

  async eraseUser(userId: string): Promise<Deleted & { users: number }> {
    const total = { conversations: 0, messages: 0, sessions: 0, users: 0 };
    const user = this.store.users.get(userId);
    for (const stored of [...this.store.conversations.values()]) {
      if (stored.conversation.userId !== userId) continue;
      const gone = this.drop(stored.conversation.conversationId);
      total.conversations += gone.conversations;
      total.messages += gone.messages;
      total.sessions += gone.sessions;
    }
    if (user) {
      // Dropping their last conversation may have taken the user along already.
      if (this.store.users.delete(userId)) this.undo.record(() => this.store.users.set(userId, user));
      total.users = 1;
    }
    return total;
  }

  async sweepExpired(expiry: Expiry): Promise<{ temporary: number; retained: number; messages: number }> {
    const expired = (s: StoredConversation): 'temporary' | 'retained' | null => {
      if (expiry.temporaryBefore && s.conversation.temporary && s.activeAt < expiry.temporaryBefore) return 'temporary';
      if (expiry.retainedBefore && s.activeAt < expiry.retainedBefore) return 'retained';
      return null;
    };
    const doomed = [...this.store.conversations.values()]
      .flatMap((s) => {
        const kind = expired(s);
        return kind ? [{ id: s.conversation.conversationId, activeAt: s.activeAt, kind }] : [];
      })
      .sort((a, b) => a.activeAt.getTime() - b.activeAt.getTime())
      .slice(0, expiry.batch);
    const swept = { temporary: 0, retained: 0, messages: 0 };
    for (const { id, kind } of doomed) {
      swept[kind]++;
      swept.messages += this.drop(id).messages;
    }
    return swept;
  }

  private drop(conversationId: string): Deleted {
    const { restore, ...counts } = dropConversation(this.store, conversationId);
    this.undo.record(restore);
    return counts;
  }

  private name(stored: StoredConversation, title: string, source: TitleSource, replyId?: string): void {
    const previous = { title: stored.title, titleSource: stored.titleSource, titledBy: stored.titledBy ?? null };
    stored.title = title;
    stored.titleSource = source;
    if (replyId !== undefined) stored.titledBy = replyId;
    this.undo.record(() => Object.assign(stored, previous));
  }

  private summarize(stored: StoredConversation): ConversationSummary {
    const id = stored.conversation.conversationId;
    const timeline = this.store.timelines.get(id) ?? [];
    const sessions = [...(this.store.sessionsOf.get(id) ?? [])].flatMap((sessionId) => {
      const session = this.store.sessions.get(sessionId);
      return session && session.title !== null ? [session] : [];
    });
    const latest = sessions.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())[0];
    const { title, titleSource } = shownTitle(stored.title, stored.titleSource, latest?.title ?? null, timeline[0]?.message.text ?? null);
    return {
      conversation: stored.conversation,
      title,
      titleSource,
      activeAt: stored.activeAt,
      lastMessageAt: timeline.length > 0 ? stored.activeAt : null,
      messageCount: timeline.length,
      headId: stored.headId,
      pinned: stored.pinned,
      archived: stored.archived,
    };
  }
}

/** A stored conversation's title, as its summary shows it (see `shownTitle`). */
export function conversationTitleIn(store: MemoryStore, conversationId: string): string | null {
  const stored = store.conversations.get(conversationId);
  const sessions = [...(store.sessionsOf.get(conversationId) ?? [])].flatMap((sessionId) => {
    const session = store.sessions.get(sessionId);
    return session && session.title !== null ? [session] : [];
  });
  const latest = sessions.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())[0];
  return shownTitle(stored?.title ?? null, stored?.titleSource ?? null, latest?.title ?? null, store.timelines.get(conversationId)?.[0]?.message.text ?? null).title;
}

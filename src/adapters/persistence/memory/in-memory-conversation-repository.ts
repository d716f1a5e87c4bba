import type {
  ConversationPage,
  ConversationPosition,
  ConversationRepository,
  ConversationSummary,
} from '../../../application/ports/conversation-repository.js';
import { conversationTitle, type Conversation } from '../../../domain/conversation.js';
import { User } from '../../../domain/user.js';
import type { UndoLog } from './undo-log.js';
import type { MemoryStore, StoredConversation } from './memory-store.js';

/** Most recently active first; ties by conversation id, descending. */
function comesBefore(a: ConversationPosition, b: ConversationPosition): boolean {
  const byTime = b.activeAt.getTime() - a.activeAt.getTime();
  return byTime < 0 || (byTime === 0 && a.conversationId > b.conversationId);
}

export class InMemoryConversationRepository implements ConversationRepository {
  constructor(
    private readonly store: MemoryStore,
    private readonly undo: UndoLog,
  ) {}

  async findById(conversationId: string): Promise<Conversation | null> {
    return this.store.conversations.get(conversationId)?.conversation ?? null;
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
    this.store.addConversation({ conversation, activeAt: conversation.createdAt });
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

  async listByUser(userId: string, limit: number, after: ConversationPosition | null): Promise<ConversationPage> {
    const position = (s: StoredConversation) => ({ activeAt: s.activeAt, conversationId: s.conversation.conversationId });
    const mine = [...this.store.conversations.values()]
      .filter((s) => s.conversation.userId === userId && (!after || comesBefore(after, position(s))))
      .sort((a, b) => (comesBefore(position(a), position(b)) ? -1 : 1));
    const page = mine.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((s) => this.summarize(s)),
      next: mine.length > limit && last ? position(last) : null,
    };
  }

  private summarize(stored: StoredConversation): ConversationSummary {
    const timeline = this.store.timelines.get(stored.conversation.conversationId) ?? [];
    return {
      conversation: stored.conversation,
      title: conversationTitleIn(this.store, stored.conversation.conversationId),
      lastMessageAt: timeline.length > 0 ? stored.activeAt : null,
      messageCount: timeline.length,
    };
  }
}

/** A stored conversation's title (see `conversationTitle`). */
export function conversationTitleIn(store: MemoryStore, conversationId: string): string | null {
  const sessions = [...(store.sessionsOf.get(conversationId) ?? [])].flatMap((sessionId) => {
    const session = store.sessions.get(sessionId);
    return session && session.title !== null ? [session] : [];
  });
  const latest = sessions.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())[0];
  return conversationTitle(latest?.title ?? null, store.timelines.get(conversationId)?.[0]?.message.text ?? null);
}

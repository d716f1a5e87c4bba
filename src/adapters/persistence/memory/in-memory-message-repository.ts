import type { AppendResult, MessagePage, MessagePosition, MessageRepository, OwnedPage, SortOrder } from '../../../application/ports/message-repository.js';
import type { Conversation } from '../../../domain/conversation.js';
import { InMemoryConversationRepository } from './in-memory-conversation-repository.js';
import type { Message } from '../../../domain/message.js';
import type { UndoLog } from './undo-log.js';
import { firstAfter, type MemoryStore, type StoredMessage } from './memory-store.js';

const positionOf = (entry: StoredMessage): MessagePosition => ({ createdAt: entry.message.createdAt, seq: entry.seq });

export class InMemoryMessageRepository implements MessageRepository {
  constructor(
    private readonly store: MemoryStore,
    private readonly undo: UndoLog,
  ) {}

  async findById(messageId: string): Promise<Message | null> {
    return this.store.messages.get(messageId)?.message ?? null;
  }

  async findReplyTo(userMessageId: string): Promise<Message | null> {
    const replyId = this.store.replies.get(userMessageId);
    return replyId === undefined ? null : (this.store.messages.get(replyId)?.message ?? null);
  }

  /** Inserts messages in order, skipping ids already stored (and a second reply to one message); the ids inserted. For the memory store's own use. */
  async insert(messages: Message[]): Promise<string[]> {
    const inserted: string[] = [];
    for (const message of messages) {
      if (this.store.messages.has(message.messageId)) continue;
      if (message.replyTo !== null && this.store.replies.has(message.replyTo)) continue; // one reply per message
      const entry = { message, seq: this.store.nextSeq() };
      this.add(entry);
      this.undo.record(() => this.remove(new Set([message.messageId]), message.conversationId));
      inserted.push(message.messageId);
    }
    return inserted;
  }

  /** One page after `after` (exclusive). For the memory store's own use. */
  async page(conversationId: string, order: SortOrder, limit: number, after: MessagePosition | null): Promise<MessagePage> {
    const timeline = this.store.timelines.get(conversationId) ?? [];
    let slice: StoredMessage[];
    if (order === 'asc') {
      const start = after ? firstAfter(timeline, after) : 0;
      slice = timeline.slice(start, start + limit + 1);
    } else {
      // Entries strictly before `after`: everything below the first entry at or after it.
      const end = after ? firstAfter(timeline, { createdAt: after.createdAt, seq: after.seq - 1 }) : timeline.length;
      slice = timeline.slice(Math.max(0, end - limit - 1), end).reverse();
    }
    const page = slice.slice(0, limit);
    const last = page.at(-1);
    return { messages: page.map((e) => e.message), next: slice.length > limit && last ? positionOf(last) : null };
  }

  async count(conversationId: string): Promise<number> {
    return this.store.timelines.get(conversationId)?.length ?? 0;
  }

  /** For the memory store's own use. */
  async deleteByIds(conversationId: string, messageIds: string[]): Promise<number> {
    const wanted = new Set(messageIds);
    return this.deleteWhere(conversationId, (entry) => wanted.has(entry.message.messageId));
  }

  async append(conversation: Conversation, messages: Message[]): Promise<AppendResult> {
    const taken = messages.flatMap((m) => this.store.messages.get(m.messageId)?.message ?? []);
    const existing = this.store.conversations.get(conversation.conversationId)?.conversation ?? null;
    if (taken.length > 0 || (existing && !existing.isOwnedBy(conversation.userId))) return { conversation: existing, taken, inserted: [] };
    const conversations = new InMemoryConversationRepository(this.store, this.undo);
    const claimed = await conversations.claim(conversation);
    await conversations.touch(claimed.conversationId, conversation.createdAt);
    return { conversation: claimed, taken: [], inserted: await this.insert(messages) };
  }

  async pageOwned(conversationId: string, userId: string, order: SortOrder, limit: number, after: MessagePosition | null): Promise<OwnedPage> {
    const conversation = this.store.conversations.get(conversationId)?.conversation ?? null;
    if (!conversation?.isOwnedBy(userId)) return { conversation, page: { messages: [], next: null } };
    return { conversation, page: await this.page(conversationId, order, limit, after) };
  }

  async deleteOwned(conversationId: string, userId: string, messageIds: string[] | null): Promise<{ conversation: Conversation | null; deleted: number }> {
    const conversation = this.store.conversations.get(conversationId)?.conversation ?? null;
    if (!conversation?.isOwnedBy(userId)) return { conversation, deleted: 0 };
    const deleted = messageIds === null ? this.deleteWhere(conversationId, () => true) : await this.deleteByIds(conversationId, messageIds);
    return { conversation, deleted };
  }

  private deleteWhere(conversationId: string, matches: (entry: StoredMessage) => boolean): number {
    const doomed = (this.store.timelines.get(conversationId) ?? []).filter(matches);
    if (doomed.length === 0) return 0;
    this.remove(new Set(doomed.map((e) => e.message.messageId)), conversationId);
    this.undo.record(() => doomed.forEach((entry) => this.add(entry)));
    return doomed.length;
  }

  private add(entry: StoredMessage): void {
    const { message } = entry;
    this.store.messages.set(message.messageId, entry);
    if (message.replyTo !== null) this.store.replies.set(message.replyTo, message.messageId);
    this.store.noteActivity(message.conversationId);
    let timeline = this.store.timelines.get(message.conversationId);
    if (!timeline) this.store.timelines.set(message.conversationId, (timeline = []));
    timeline.splice(firstAfter(timeline, positionOf(entry)), 0, entry);
  }

  private remove(ids: Set<string>, conversationId: string): void {
    for (const id of ids) {
      const entry = this.store.messages.get(id);
      if (entry?.message.replyTo != null) this.store.replies.delete(entry.message.replyTo);
      this.store.messages.delete(id);
    }
    const timeline = (this.store.timelines.get(conversationId) ?? []).filter((e) => !ids.has(e.message.messageId));
    if (timeline.length > 0) this.store.timelines.set(conversationId, timeline);
    else this.store.timelines.delete(conversationId);
  }
}

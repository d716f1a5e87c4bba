import type { ReplyRepository, TurnRecord, TurnStart } from '../../../application/ports/reply-repository.js';
import type { Message } from '../../../domain/message.js';
import { cutShort, grown, isCutShort, isStale } from '../../../domain/reply.js';
import { InMemoryMessageRepository } from './in-memory-message-repository.js';
import type { MemoryStore } from './memory-store.js';
import type { UndoLog } from './undo-log.js';

/** Replies in the memory store; every write is announced through `announce`. */
export class InMemoryReplyRepository implements ReplyRepository {
  private readonly messages: InMemoryMessageRepository;

  constructor(
    private readonly store: MemoryStore,
    undo: UndoLog,
    private readonly announce: (replyId: string) => void,
  ) {
    this.messages = new InMemoryMessageRepository(store, undo);
  }

  async begin(start: TurnStart): Promise<TurnRecord> {
    const { conversationId } = start.conversation;
    const history = (await this.messages.page(conversationId, 'desc', start.historyLimit + 1, null)).messages
      .filter((m) => m.status === 'completed')
      .slice(0, start.historyLimit);
    const appended = await this.messages.append(start.conversation, [start.userMessage, start.reply]);
    const taken = appended.taken.find((m) => m.messageId === start.userMessage.messageId) ?? null;
    const takenReply = taken ? await this.messages.findReplyTo(taken.messageId) : null;
    if (appended.inserted.length > 0) this.announce(start.reply.messageId);
    return { conversation: appended.conversation, taken, takenReply, history, opened: appended.inserted.length === 2 };
  }

  async reopen(reply: Message): Promise<Message | null> {
    const standing = await this.messages.findReplyTo(reply.replyTo!);
    if (standing && !isCutShort(standing)) return null;
    if (standing) await this.messages.deleteByIds(standing.conversationId, [standing.messageId]);
    const [inserted] = await this.messages.insert([reply]);
    if (inserted === undefined) return null;
    this.announce(reply.messageId);
    return reply;
  }

  async advance(replyId: string, text: string, at: Date): Promise<boolean> {
    const entry = this.store.messages.get(replyId);
    if (!entry || entry.message.status !== 'in_progress') return false;
    entry.message = grown(entry.message, text, at);
    this.announce(replyId);
    return true;
  }

  async finish(reply: Message, at: Date): Promise<Message | null> {
    const entry = this.store.messages.get(reply.messageId);
    if (!entry || entry.message.status !== 'in_progress') return entry?.message ?? null;
    if (reply.text === '') {
      await this.messages.deleteByIds(reply.conversationId, [reply.messageId]);
    } else {
      entry.message = reply.with({ status: 'completed', progressAt: null });
      const conversation = this.store.conversations.get(reply.conversationId);
      if (conversation && conversation.activeAt < at) conversation.activeAt = at;
    }
    this.announce(reply.messageId);
    return this.store.messages.get(reply.messageId)?.message ?? null;
  }

  async findInProgress(conversationId: string): Promise<Message | null> {
    const timeline = this.store.timelines.get(conversationId) ?? [];
    for (let i = timeline.length - 1; i >= 0; i--) {
      if (timeline[i]!.message.status === 'in_progress') return timeline[i]!.message;
    }
    return null;
  }

  async interruptStale(before: Date, at: Date): Promise<number> {
    const stale = [...this.store.messages.values()]
      .map((entry) => entry.message)
      .filter((m) => isStale(m, before));
    for (const reply of stale) await this.finish(cutShort(reply, 'interrupted'), at);
    return stale.length;
  }
}

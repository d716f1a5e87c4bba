import {
  REGENERATE_LOOKUP_STEPS,
  turnMessages,
  type ConversationName,
  type RegenerateRecord,
  type RegenerateStart,
  type ReplyAdvance,
  type ReplyRepository,
  type TurnRecord,
  type TurnStart,
} from '../../../application/ports/reply-repository.js';
import { InMemoryConversationRepository } from './in-memory-conversation-repository.js';
import type { Message } from '../../../domain/message.js';
import { cutShort, grown, indexOfCodePoint, isCutShort, isMoreOfInterrupted, isStale } from '../../../domain/reply.js';
import { InMemoryMessageRepository } from './in-memory-message-repository.js';
import { keepEnding, responseRecordOf } from './in-memory-response-repository.js';
import type { MemoryStore } from './memory-store.js';
import type { UndoLog } from './undo-log.js';

/** Replies in the memory store. */
export class InMemoryReplyRepository implements ReplyRepository {
  private readonly messages: InMemoryMessageRepository;

  constructor(
    private readonly store: MemoryStore,
    private readonly undo: UndoLog,
  ) {
    this.messages = new InMemoryMessageRepository(store, undo);
  }

  async begin(start: TurnStart): Promise<TurnRecord> {
    const { conversationId } = start.conversation;
    const question = start.userMessage;
    const taken = this.store.messages.get(question.messageId)?.message ?? null;
    const { sent, roots } = turnMessages(start);
    const stamped = new Set(sent.map((m) => m.messageId));
    const appended = await this.messages.place(start.conversation, sent, { parentIfStored: start.parentIfStored ?? null, roots, stamped });
    const opened = appended.inserted.length === sent.length;
    const placed = appended.inserted.find((i) => i.messageId === question.messageId);
    const stored = opened && placed ? question.with({ parentId: placed.parentId, createdAt: placed.createdAt }) : null;
    // The history is the path above the question and its context (above the one stored, for a repeated question), as it was before this call.
    const above = taken ? taken.parentId : opened ? appended.inserted[0]!.parentId : null;
    const history = this.finishedAbove(above, conversationId, start.historyLimit).filter((m) => m.messageId !== start.reply.messageId);
    const takenReply = taken ? await this.messages.findReplyTo(taken.messageId) : null;
    return {
      conversation: appended.conversation,
      taken: appended.taken.find((m) => m.messageId === question.messageId) ?? null,
      takenReply,
      history,
      opened: stored !== null,
      unknownParent: appended.unknownParents.length > 0,
      stored,
      titled: (this.store.conversations.get(conversationId)?.titleSource ?? null) !== null,
    };
  }

  async regenerate(start: RegenerateStart): Promise<RegenerateRecord> {
    const { conversationId } = start.conversation;
    const conversation = this.store.conversations.get(conversationId)?.conversation ?? null;
    const target = this.store.messages.get(start.targetId)?.message;
    const questionId = target?.conversationId === conversationId ? this.askedBy(target) : null;
    const found = questionId === null ? undefined : this.store.messages.get(questionId)?.message;
    const question = found && found.role === 'user' && found.conversationId === conversationId ? found : null;
    const none = { conversation, question, running: null, opened: null, history: [] };
    if (!question) return none;
    const history = this.finishedAbove(question.parentId, conversationId, start.historyLimit);
    const runningId = (this.store.replies.get(question.messageId) ?? []).find((id) => this.store.messages.get(id)?.message.status === 'in_progress');
    if (runningId !== undefined) return { ...none, running: this.store.messages.get(runningId)!.message, history };
    if (!conversation?.isOwnedBy(start.reply.userId)) return { ...none, history };
    const reply = start.reply.with({ createdAt: start.reply.createdAt < question.createdAt ? question.createdAt : start.reply.createdAt });
    const opened = reply.with({ parentId: question.messageId, replyTo: question.messageId });
    const inserted = await this.messages.insert([opened]);
    if (inserted.length === 0) return { ...none, history };
    this.messages.moveHead(conversationId, opened.messageId);
    const stored = this.store.conversations.get(conversationId);
    if (stored && stored.activeAt < opened.createdAt) stored.activeAt = opened.createdAt;
    return { conversation, question, running: null, opened, history };
  }

  async reopen(reply: Message): Promise<Message | null> {
    const standing = await this.messages.findReplyTo(reply.replyTo!);
    if (standing && !isCutShort(standing)) return null;
    const opened = reply.with({ parentId: reply.replyTo });
    if (standing) {
      // The cut-short reply is replaced: its children (if any) follow the new one.
      this.messages.deleteSpliced(standing.conversationId, new Set([standing.messageId]));
    }
    const [inserted] = await this.messages.insert([opened]);
    if (inserted === undefined) return null;
    this.messages.moveHead(reply.conversationId, opened.messageId);
    return opened;
  }

  async advance(advances: readonly ReplyAdvance[], at: Date): Promise<string[]> {
    const advanced: string[] = [];
    for (const { replyId, from, text } of advances) {
      const entry = this.store.messages.get(replyId);
      if (!entry || entry.message.status !== 'in_progress') continue;
      const kept = entry.message.with({ text: entry.message.text.slice(0, indexOfCodePoint(entry.message.text, from)) });
      entry.message = grown(kept, text, at);
      advanced.push(replyId);
    }
    return advanced;
  }

  async finish(reply: Message, at: Date): Promise<Message | null> {
    return (await this.finishAndName(reply, at)).message;
  }

  async finishAndName(reply: Message, at: Date, name?: ConversationName): Promise<{ message: Message | null; named: boolean }> {
    const entry = this.store.messages.get(reply.messageId);
    if (!entry || entry.message.status !== 'in_progress') return { message: entry?.message ?? null, named: false };
    let named = false;
    if (reply.text === '') {
      const record = responseRecordOf(this.store, entry) ?? null;
      const { messageId: responseId, conversationId, userId, replyTo, createdAt } = entry.message;
      keepEnding(this.store, { responseId, conversationId, userId, replyTo, createdAt, finishReason: reply.finishReason ?? 'cancelled', metadata: reply.metadata, record }, this.undo);
      this.messages.deleteSpliced(reply.conversationId, new Set([reply.messageId]));
    } else {
      // Its place stays as stored (parent, time), as PostgreSQL's finish writes neither.
      entry.message = reply.with({ status: 'completed', progressAt: null, parentId: entry.message.parentId, createdAt: entry.message.createdAt });
      const conversation = this.store.conversations.get(reply.conversationId);
      if (conversation && conversation.activeAt < at) conversation.activeAt = at;
      if (name) named = new InMemoryConversationRepository(this.store, this.undo).nameIfUntitled(reply.conversationId, name.title, name.source, reply.messageId);
    }
    return { message: this.store.messages.get(reply.messageId)?.message ?? null, named };
  }

  async inProgressOf(userId: string): Promise<Message[]> {
    return [...this.store.messages.values()].map((e) => e.message).filter((m) => m.userId === userId && m.status === 'in_progress');
  }

  async findInProgress(conversationId: string): Promise<Message | null> {
    const timeline = this.store.timelines.get(conversationId) ?? [];
    for (let i = timeline.length - 1; i >= 0; i--) {
      if (timeline[i]!.message.status === 'in_progress') return timeline[i]!.message;
    }
    return null;
  }

  async extendInterrupted(replyId: string, text: string): Promise<Message | null> {
    const entry = this.store.messages.get(replyId);
    if (!entry) return null;
    const stored = entry.message;
    if (!isMoreOfInterrupted(stored, text)) return stored;
    entry.message = stored.with({ text });
    this.undo.record(() => (entry.message = stored));
    return entry.message;
  }

  async interruptStale(before: Date, at: Date): Promise<number> {
    const stale = [...this.store.messages.values()].map((entry) => entry.message).filter((m) => isStale(m, before));
    for (const reply of stale) await this.finish(cutShort(reply, 'interrupted'), at);
    return stale.length;
  }

  /**
   * The user message a regenerate of `target` answers: itself, for a user message; the question of a
   * reply, or (for a reply stored without it: saved, imported) the nearest user message above it on
   * its path, over the system and assistant messages between; none for a system message.
   */
  private askedBy(target: Message): string | null {
    if (target.role !== 'assistant') return target.role === 'user' ? target.messageId : null;
    if (target.replyTo !== null) return target.replyTo;
    for (let id = target.parentId, steps = 0; id !== null && steps < REGENERATE_LOOKUP_STEPS; steps++) {
      const above = this.store.messages.get(id)?.message;
      if (!above || above.conversationId !== target.conversationId) return null;
      if (above.role === 'user') return above.messageId;
      id = above.parentId;
    }
    return null;
  }

  /** The finished messages above `from` (itself included) on its path, newest first, at most `limit`. */
  private finishedAbove(from: string | null, conversationId: string, limit: number): Message[] {
    const found: Message[] = [];
    for (let id = from, steps = 0; id !== null && found.length < limit && steps < limit * 2; steps++) {
      const message = this.store.messages.get(id)?.message;
      if (!message || message.conversationId !== conversationId) break;
      if (message.status === 'completed') found.push(message);
      id = message.parentId;
    }
    return found;
  }
}

import { recentHistory } from '../../domain/chat-history.js';
import { Conversation } from '../../domain/conversation.js';
import { MessageIdConflictError } from '../../domain/errors.js';
import { Message } from '../../domain/message.js';
import { isCutShort, isStale } from '../../domain/reply.js';
import type { ChatRequest } from '../ports/chat-model.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { PersonaSource } from '../ports/persona-source.js';
import type { Repositories, UnitOfWork } from '../ports/unit-of-work.js';
import type { ChatSettings } from '../settings.js';
import type { ReplyJobs } from './reply-jobs.js';

export interface ChatInput {
  text: string;
  userId: string;
  conversationId?: string;
  messageId?: string;
}

export interface BegunTurn {
  conversation: Conversation;
  userMessage: Message;
  /**
   * The reply: opened by this turn (`request` says what to ask the model), or the one a
   * repeated message already has — in progress (to join) or answered (to replay).
   */
  reply: Message;
  request: ChatRequest | null;
}

/**
 * The start of a chat exchange, which plain and streamed chat share: the user's message is
 * stored (it stays stored whatever the model does) and the reply opened, in one step; a
 * repeated `message_id` finds its reply instead, or replaces one that was cut short.
 */
export class ChatTurns {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly personaSource: PersonaSource,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly settings: ChatSettings,
    private readonly jobs: ReplyJobs,
  ) {}

  async begin(input: ChatInput, modelName: string): Promise<BegunTurn> {
    for (let attempt = 1; attempt <= 3; attempt++) {
      const turn = await this.tryBegin(input, modelName);
      if (turn) return turn;
    }
    throw new Error('the message could not be stored after 3 attempts');
  }

  /** Null when the same message_id was stored by a concurrent request after this one looked: look again. */
  private tryBegin(input: ChatInput, modelName: string): Promise<BegunTurn | null> {
    return this.unitOfWork.run(
      async (repositories): Promise<BegunTurn | null> => {
        const now = this.clock.now();
        const candidate = await this.conversationFor(repositories, input, now);
        const userMessage = Message.create({
          messageId: input.messageId ?? this.ids.newId(),
          conversationId: candidate.conversationId,
          userId: candidate.userId,
          role: 'user',
          text: input.text,
          createdAt: now,
          metadata: {},
          replyTo: null,
        });
        const reply = this.openReply(userMessage, modelName, now);
        const budget = { messages: this.settings.historyMessages, chars: this.settings.historyChars };
        const record = await repositories.replies.begin({ conversation: candidate, userMessage, reply, historyLimit: budget.messages });
        const conversation = record.conversation?.assertOwnedBy(input.userId) ?? candidate;
        const history = recentHistory(
          record.history.filter((m) => m.replyTo !== userMessage.messageId),
          userMessage,
          budget,
        );
        const request = { persona: this.personaSource.persona(), history, text: userMessage.text };
        if (record.opened) return { conversation, userMessage, reply, request };
        if (!record.taken) return null;

        const difference = record.taken.differenceFrom(userMessage, { metadata: false, createdAt: false });
        if (difference) throw new MessageIdConflictError(userMessage.messageId, difference);
        return { conversation, userMessage: record.taken, ...(await this.replyOf(repositories, record.taken, record.takenReply, modelName, request)) };
      },
      { atomic: false },
    );
  }

  /** The reply of a repeated message: its answer, the one in progress, or a new one replacing one cut short. */
  private async replyOf(repositories: Repositories, userMessage: Message, standing: Message | null, modelName: string, request: ChatRequest): Promise<Pick<BegunTurn, 'reply' | 'request'>> {
    const now = this.clock.now();
    if (standing && isStale(standing, now, this.jobs.settings.staleMs)) {
      await this.jobs.sweepStale();
      standing = await repositories.messages.findReplyTo(userMessage.messageId);
    }
    if (standing && !isCutShort(standing)) return { reply: standing, request: null };
    const reopened = await repositories.replies.reopen(this.openReply(userMessage, modelName, now));
    if (reopened) return { reply: reopened, request };
    // Another request reopened it first: join that one.
    const other = await repositories.messages.findReplyTo(userMessage.messageId);
    return other ? { reply: other, request: null } : this.replyOf(repositories, userMessage, null, modelName, request);
  }

  private openReply(userMessage: Message, modelName: string, now: Date): Message {
    return Message.create({
      messageId: this.ids.newId(),
      conversationId: userMessage.conversationId,
      userId: userMessage.userId,
      role: 'assistant',
      text: '',
      createdAt: now < userMessage.createdAt ? userMessage.createdAt : now,
      metadata: { model: modelName },
      replyTo: userMessage.messageId,
      status: 'in_progress',
      progressAt: now,
    });
  }

  /** The conversation the turn goes to (not yet stored, when new). */
  private async conversationFor(repositories: Repositories, input: ChatInput, now: Date): Promise<Conversation> {
    const candidate = (conversationId: string) => Conversation.create({ conversationId, userId: input.userId, createdAt: now });
    if (input.conversationId !== undefined) return candidate(input.conversationId);
    if (input.messageId !== undefined) {
      // A retried request that started a conversation: the message tells which one.
      const earlier = await repositories.messages.findById(input.messageId);
      if (earlier) {
        const conversation = await repositories.conversations.findById(earlier.conversationId);
        if (!conversation?.isOwnedBy(input.userId)) throw new MessageIdConflictError(input.messageId, 'conversation');
        return conversation;
      }
    }
    return candidate(this.ids.newId());
  }
}

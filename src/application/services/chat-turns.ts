import { recentHistory } from '../../domain/chat-history.js';
import { Conversation } from '../../domain/conversation.js';
import { ChatModelFailedError, MessageIdConflictError } from '../../domain/errors.js';
import { Message } from '../../domain/message.js';
import type { ChatReply, ChatRequest } from '../ports/chat-model.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { PersonaSource } from '../ports/persona-source.js';
import type { Repositories, UnitOfWork } from '../ports/unit-of-work.js';
import type { ChatSettings } from '../settings.js';
import { storeMessages } from './store-messages.js';

export interface ChatInput {
  text: string;
  userId: string;
  conversationId?: string;
  messageId?: string;
}

export interface BegunTurn {
  conversation: Conversation;
  userMessage: Message;
  /** The reply stored earlier for this user message (an idempotent replay), if any. */
  storedReply: Message | null;
  /** The id the reply gets when stored, known up front so a stream can announce it. */
  replyId: string;
  request: ChatRequest;
}

/** The two halves of a chat exchange that plain and streamed chat share. */
export class ChatTurns {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly personaSource: PersonaSource,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly settings: ChatSettings,
  ) {}

  /** Stores the user's message (it stays stored whatever the model does) and builds the model's request. */
  begin(input: ChatInput): Promise<BegunTurn> {
    // Each step is atomic by itself: the user's message is stored in one step, and stays stored.
    return this.unitOfWork.run(
      async (repositories) => {
        const now = this.clock.now();
        const candidate = await this.conversationFor(repositories, input, now);
        const stored = await storeMessages(repositories, candidate, [{ messageId: input.messageId, role: 'user', text: input.text }], {
          now,
          newId: () => this.ids.newId(),
        });
        const { conversation } = stored;
        const userMessage = stored.messages[0]!;
        const resent = !stored.insertedIds.has(userMessage.messageId);
        const storedReply = resent ? await repositories.messages.findReplyTo(userMessage.messageId) : null;
        const history = storedReply ? [] : await this.historyBefore(repositories, userMessage);
        const request = { persona: this.personaSource.persona(), history, text: userMessage.text };
        const replyId = storedReply?.messageId ?? this.ids.newId();
        return { conversation, userMessage, storedReply, replyId, request };
      },
      { atomic: false },
    );
  }

  /** Stores the assistant's reply to the turn. */
  finish(turn: BegunTurn, reply: ChatReply, extra: Record<string, unknown> = {}): Promise<Message> {
    if (reply.text.trim() === '') throw new ChatModelFailedError('the language model returned an empty reply');
    const now = this.clock.now();
    const createdAt = now < turn.userMessage.createdAt ? turn.userMessage.createdAt : now;
    const metadata: Record<string, unknown> = { model: reply.model, finish_reason: reply.finishReason, ...extra };
    if (reply.usage) {
      metadata.usage = {
        prompt_tokens: reply.usage.promptTokens,
        completion_tokens: reply.usage.completionTokens,
        total_tokens: reply.usage.totalTokens,
      };
    }
    const message = Message.create({
      messageId: turn.replyId,
      conversationId: turn.conversation.conversationId,
      userId: turn.conversation.userId,
      role: 'assistant',
      text: reply.text,
      createdAt,
      metadata,
      replyTo: turn.userMessage.messageId,
    });
    return this.unitOfWork.run(
      async (repositories) => {
        const appended = await repositories.messages.append(Conversation.create({ ...turn.conversation, createdAt: now }), [message]);
        if (appended.inserted.length > 0) return message;
        // A concurrent identical request answered first: its reply is the one stored.
        return (await repositories.messages.findReplyTo(turn.userMessage.messageId)) ?? message;
      },
      { atomic: false },
    );
  }

  /**
   * Stores what the model had said when the turn was cut short (`finishReason` "cancelled" or
   * "error"). An empty partial reply cannot be a message: nothing is stored and null returned.
   */
  async keepPartial(turn: BegunTurn, partial: { text: string; finishReason: 'cancelled' | 'error'; model: string }): Promise<Message | null> {
    if (partial.text.trim() === '') return null;
    return this.finish(turn, { ...partial, usage: null });
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

  /** The conversation's recent turns before `message`, within the history budget. */
  private async historyBefore(repositories: Repositories, message: Message) {
    const budget = { messages: this.settings.historyMessages, chars: this.settings.historyChars };
    if (budget.messages === 0) return [];
    const page = await repositories.messages.page(message.conversationId, 'desc', budget.messages + 1, null);
    return recentHistory(page.messages, message, budget);
  }
}

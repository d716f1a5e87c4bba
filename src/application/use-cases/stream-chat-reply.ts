import { ChatModelFailedError } from '../../domain/errors.js';
import type { ChatModel } from '../ports/chat-model.js';
import type { BegunTurn, ChatInput, ChatTurns } from '../services/chat-turns.js';

export type ChatStreamEvent =
  | { type: 'delta'; text: string }
  /** The reply is stored before this event is produced. */
  | { type: 'done'; response: string; messageId: string; finishReason: string; createdAt: Date }
  /** The model failed (or storing failed); whatever it had said is stored with finish_reason "error". */
  | { type: 'error'; error: unknown };

export interface ChatReplyStream {
  conversationId: string;
  userMessageId: string;
  /** The id the reply will be stored under. */
  messageId: string;
  /**
   * The reply as it is made. When `signal` aborts (the client went away), the model call is
   * aborted, the partial reply is stored with finish_reason "cancelled", and the events end
   * without a `done` or `error`.
   */
  events(signal: AbortSignal): AsyncGenerator<ChatStreamEvent, void, undefined>;
}

/**
 * POST /v1/chat/stream: like SendChatMessage, but the reply is passed on piece by piece.
 * `execute` stores the user's message and fails the ordinary way (404, 409...) before any
 * event exists; from then on failures are events, since the stream has already begun.
 */
export class StreamChatReply {
  constructor(
    private readonly turns: ChatTurns,
    private readonly model: ChatModel,
  ) {}

  async execute(input: ChatInput): Promise<ChatReplyStream> {
    const turn = await this.turns.begin(input);
    return {
      conversationId: turn.conversation.conversationId,
      userMessageId: turn.userMessage.messageId,
      messageId: turn.replyId,
      events: (signal) => (turn.storedReply ? this.replay(turn) : this.generate(turn, signal)),
    };
  }

  /** An answered message_id: the stored reply again, in one piece, without asking the model. */
  private async *replay(turn: BegunTurn): AsyncGenerator<ChatStreamEvent, void, undefined> {
    const reply = turn.storedReply!;
    const finishReason = typeof reply.metadata.finish_reason === 'string' ? reply.metadata.finish_reason : 'stop';
    yield { type: 'delta', text: reply.text };
    yield { type: 'done', response: reply.text, messageId: reply.messageId, finishReason, createdAt: reply.createdAt };
  }

  private async *generate(turn: BegunTurn, signal: AbortSignal): AsyncGenerator<ChatStreamEvent, void, undefined> {
    let text = '';
    let model = this.model.name ?? 'unknown';
    try {
      for await (const chunk of this.model.stream(turn.request, signal)) {
        if (chunk.type === 'delta') {
          if (chunk.text === '') continue;
          text += chunk.text;
          yield { type: 'delta', text: chunk.text };
          continue;
        }
        model = chunk.model;
        const stored = await this.turns.finish(turn, { text, finishReason: chunk.finishReason, model, usage: chunk.usage });
        yield { type: 'done', response: stored.text, messageId: stored.messageId, finishReason: chunk.finishReason, createdAt: stored.createdAt };
        return;
      }
      if (!signal.aborted) throw new ChatModelFailedError('the language model stopped without finishing its reply');
    } catch (error) {
      if (!signal.aborted) {
        yield* this.fail(turn, text, model, error);
        return;
      }
    }
    await this.turns.keepPartial(turn, { text, finishReason: 'cancelled', model });
  }

  private async *fail(turn: BegunTurn, text: string, model: string, error: unknown): AsyncGenerator<ChatStreamEvent, void, undefined> {
    try {
      await this.turns.keepPartial(turn, { text, finishReason: 'error', model });
    } catch (storing) {
      yield { type: 'error', error: storing };
      return;
    }
    yield { type: 'error', error };
  }
}

import { ChatModelFailedError } from '../../domain/errors.js';
import type { ChatModel, ChatReply, ChatRequest } from '../ports/chat-model.js';
import { estimatedUsage } from '../usage/estimated-usage.js';
import type { ChatInput, StartTurn } from './start-turn.js';
import type { ReplyFeed } from './reply-feed.js';
import type { ReplyJobs } from './reply-jobs.js';
import type { StopSignal } from './reply-job.js';

export interface ChatExchange {
  response: string;
  conversationId: string;
  messageId: string;
  userMessageId: string;
  createdAt: Date;
  finishReason: string;
}

/**
 * POST /v1/chat: store the user's message, ask the model, store and return the reply. The reply
 * is a job of the service like a streamed one, so a repeated message_id whose reply is still
 * being written waits for it, and one whose reply was cut short asks again.
 */
export class SendChatMessage {
  constructor(
    private readonly startTurn: StartTurn,
    private readonly model: ChatModel,
    private readonly jobs: ReplyJobs,
    private readonly feed: ReplyFeed,
  ) {}

  async execute(input: ChatInput): Promise<ChatExchange> {
    const turn = await this.startTurn.execute(input, this.model.name ?? 'unknown');
    const { request } = turn;
    // A reply made whole has no first piece to wait for: its title is asked for beside it, busy or not.
    void turn.naming?.propose?.();
    const end = request
      ? await this.jobs.start(turn.reply, { whole: (stop) => this.answer(request, stop) }, turn.naming, (text) => estimatedUsage(this.model, request, text)).done
      : await this.feed.end(turn.reply, new AbortController().signal);
    if (!end) throw new ChatModelFailedError('the reply ended without finishing');
    if (end.failure !== undefined) throw end.failure;
    // A reply stopped before its first piece is removed: answered as its streams end, without text (a stop is no failure).
    const reply = end.message ?? turn.reply.with({ text: '' });
    return {
      response: reply.text,
      conversationId: turn.conversation.conversationId,
      messageId: reply.messageId,
      userMessageId: turn.userMessage.messageId,
      createdAt: reply.createdAt,
      finishReason: end.finishReason,
    };
  }

  /** The model's whole reply; a model that answers at once is given no signal (StopSignal). */
  private answer(request: ChatRequest, stop: StopSignal): Promise<ChatReply> {
    return this.model.complete(request, this.model.immediate ? undefined : stop.signal);
  }
}

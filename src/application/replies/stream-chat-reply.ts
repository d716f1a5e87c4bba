import type { Message } from '../../domain/message.js';
import type { ChatModel } from '../ports/chat-model.js';
import { estimatedUsage } from '../usage/estimated-usage.js';
import type { ChatInput, StartTurn } from './start-turn.js';
import type { FeedEvent, ReplyFeed } from './reply-feed.js';
import type { ReplyJobs } from './reply-jobs.js';

/** A reply as a stream: who it belongs to, and its events from a position (code points). */
export interface ChatReplyStream {
  conversationId: string;
  /** The user message it answers (null for an assistant message stored otherwise). */
  userMessageId: string | null;
  /** The reply's id. */
  messageId: string;
  /** Whether this request started the reply (a repeated message_id joins the one it has). */
  startedHere: boolean;
  /** What is there after `from`, then what comes, then the end; ends early when `signal` aborts. */
  events(from: number, signal: AbortSignal): AsyncGenerator<FeedEvent>;
  /** Stops the reply at once when it is produced here (STREAM_ON_DISCONNECT=cancel), else asks its producer to. */
  cancel(): void;
}

export function replyStream(feed: ReplyFeed, jobs: ReplyJobs, reply: Message, startedHere: boolean): ChatReplyStream {
  return {
    conversationId: reply.conversationId,
    userMessageId: reply.replyTo,
    messageId: reply.messageId,
    startedHere,
    events: (from, signal) => feed.watch(reply, from, signal),
    cancel: () => void jobs.requestStop(reply.messageId).catch(() => undefined),
  };
}

/**
 * POST /v1/chat/stream: stores the user's message and starts the reply as a job of the service
 * (or, for a repeated message_id, joins or replays the reply it has). `execute` fails the
 * ordinary way (404, 409...) before any event exists; the reply then runs to its end whoever
 * listens, and failures become events.
 */
export class StreamChatReply {
  constructor(
    private readonly startTurn: StartTurn,
    private readonly model: ChatModel,
    private readonly jobs: ReplyJobs,
    private readonly feed: ReplyFeed,
  ) {}

  async execute(input: ChatInput): Promise<ChatReplyStream> {
    const turn = await this.startTurn.execute(input, this.model.name ?? 'unknown');
    const { request } = turn;
    if (request) this.jobs.start(turn.reply, (stop) => this.model.stream(request, stop.signal), turn.naming, (text) => estimatedUsage(this.model, request, text));
    return replyStream(this.feed, this.jobs, turn.reply, request !== null);
  }
}

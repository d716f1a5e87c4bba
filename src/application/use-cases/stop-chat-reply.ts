import type { Message } from '../../domain/message.js';
import type { Clock } from '../ports/clock.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ReplyFeed } from '../services/reply-feed.js';
import type { ReplyJobs } from '../services/reply-jobs.js';
import { findReply } from './resume-chat-reply.js';

/** How long a stop waits for the producer (on any instance) to store the reply before storing it itself. */
const PRODUCER_WAIT_MS = 3000;

/**
 * POST /v1/chat/stream/{message_id}/stop: the producer, wherever it runs, aborts the model and
 * stores the text so far as "cancelled" (every stream of the reply then ends with that
 * `done`); a reply stopped before its first piece is removed (null). A finished reply is
 * returned unchanged. A producer that does not answer in time has its reply stopped here,
 * from the text it last stored.
 */
export class StopChatReply {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly jobs: ReplyJobs,
    private readonly feed: ReplyFeed,
    private readonly clock: Clock,
  ) {}

  async execute(input: { userId: string; messageId: string }): Promise<Message | null> {
    const reply = await findReply(this.unitOfWork, input.userId, input.messageId);
    if (reply.status === 'completed') return reply;
    const watching = new AbortController();
    const timer = setTimeout(() => watching.abort(), PRODUCER_WAIT_MS);
    try {
      const ending = (async () => {
        for await (const event of this.feed.watch(reply, 0, watching.signal)) if (event.type === 'end') return event.message;
        return undefined;
      })();
      await this.jobs.requestStop(reply.messageId).catch(() => undefined);
      const ended = await ending;
      if (ended !== undefined) return ended;
    } finally {
      clearTimeout(timer);
    }
    const current = await this.unitOfWork.run((r) => r.messages.findById(reply.messageId), { atomic: false });
    if (!current || current.status === 'completed') return current;
    const stopped = current.withMetadata({ ...current.metadata, finish_reason: 'cancelled' });
    return this.unitOfWork.run((r) => r.replies.finish(stopped, this.clock.now()), { atomic: false });
  }
}

import type { Message } from '../../domain/message.js';
import { cutShort } from '../../domain/reply.js';
import type { Clock } from '../ports/clock.js';
import type { StoredReplies } from '../ports/stored-replies.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ReplyFeed } from './reply-feed.js';
import type { ReplyJobs } from './reply-jobs.js';
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
    private readonly stored: StoredReplies,
    private readonly jobs: ReplyJobs,
    private readonly feed: ReplyFeed,
    private readonly clock: Clock,
  ) {}

  async execute(input: { userId: string; messageId: string }): Promise<Message | null> {
    const reply = await findReply(this.stored, input.userId, input.messageId);
    if (reply.status === 'completed') return reply;
    const end = await this.askProducer(reply);
    return end ? end.message : this.stopHere(reply.messageId);
  }

  /** Asks the reply's producer to stop it, and waits a while for the end it stores. */
  private async askProducer(reply: Message) {
    const ending = this.feed.end(reply, AbortSignal.timeout(PRODUCER_WAIT_MS));
    await this.jobs.requestStop(reply.messageId).catch(() => undefined);
    return ending;
  }

  /** No producer answered: the reply is stopped as it was last stored. */
  private async stopHere(replyId: string): Promise<Message | null> {
    const current = await this.stored.read(replyId);
    if (!current || current.status === 'completed') return current;
    return this.unitOfWork.run((r) => r.replies.finish(cutShort(current, 'cancelled'), this.clock.now()), { atomic: false });
  }
}

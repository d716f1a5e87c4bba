import { ChatModelFailedError } from '../../domain/errors.js';
import type { TitleSource } from '../../domain/conversation.js';
import type { Message } from '../../domain/message.js';
import { indexOfCodePoint, isStale, replyLength } from '../../domain/reply.js';
import type { ReplyNotifications } from '../ports/reply-notifications.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ReplyJob } from './reply-job.js';
import type { ReplyJobs } from './reply-jobs.js';
import { AbortableWaits, Wakeup } from './signals.js';

export type FeedEvent =
  /** The text after the listener's position; `position` is where it stands afterwards (code points). */
  | { type: 'text'; text: string; position: number }
  /** The conversation was named with this reply (its first): before the end. */
  | { type: 'title'; conversationId: string; title: string; titleSource: TitleSource; position: number }
  /** The end: the stored reply (null when it was removed), why it ended, and the failure for an `error` event. */
  | { type: 'end'; message: Message | null; finishReason: string; failure?: unknown; position: number };

export type FeedEnd = Extract<FeedEvent, { type: 'end' }>;

/** How often a listener of a reply produced elsewhere looks at the store, whatever the notices say. */
const POLL_MS = 1000;

/**
 * A reply as a listener reads it, from any position: what is there, then what comes, then
 * the end. Pull-based: each read returns everything written since the last one, so a slow
 * listener costs nothing but its position (the text is shared: the producing job's here, or
 * the store's). A reply produced on this instance is read from its job (at once); one produced
 * elsewhere from the store, when notified and at least every second.
 */
export class ReplyFeed {
  constructor(
    private readonly jobs: ReplyJobs,
    private readonly store: UnitOfWork,
    private readonly notifications: ReplyNotifications,
  ) {}

  watch(reply: Message, from: number, signal: AbortSignal): AsyncGenerator<FeedEvent> {
    const job = this.jobs.local(reply.messageId);
    return job ? this.fromJob(job, from, signal) : this.fromStore(reply, from, signal);
  }

  /** The reply's end, once it comes; undefined when `signal` aborts first. Watching starts at once. */
  async end(reply: Message, signal: AbortSignal): Promise<FeedEnd | undefined> {
    for await (const event of this.watch(reply, replyLength(reply.text), signal)) if (event.type === 'end') return event;
    return undefined;
  }

  private async *fromJob(job: ReplyJob, from: number, signal: AbortSignal): AsyncGenerator<FeedEvent> {
    let index = indexOfCodePoint(job.text, from);
    let position = Math.min(from, job.length);
    /** The number of the next piece to read, once this listener has caught up with the text (job.piecesFrom). */
    let next = -1;
    const waits = new AbortableWaits(signal);
    try {
      for (;;) {
        if (job.text.length > index) {
          const text = (next >= 0 ? job.piecesFrom(next) : undefined) ?? job.text.slice(index);
          next = job.pieceCount;
          index = job.text.length;
          position += replyLength(text);
          yield { type: 'text', text, position };
          continue;
        }
        if (job.end) {
          if (job.title) yield { type: 'title', conversationId: job.title.conversationId, title: job.title.title, titleSource: job.title.source, position };
          yield { type: 'end', ...job.end, position };
          return;
        }
        if (!(await waits.until(job.changes.next()))) return;
      }
    } finally {
      waits.dispose();
    }
  }

  /**
   * A reply produced elsewhere (or by nobody any more: it is swept up once stale), read from
   * the store. The store lags behind the producer's own stream, so a listener may stand past
   * the stored text: it then waits for the store to catch up (clamping its position would send
   * again what it holds).
   */
  private async *fromStore(first: Message, from: number, signal: AbortSignal): AsyncGenerator<FeedEvent> {
    const wakeup = new Wakeup();
    const waits = new AbortableWaits(signal);
    const unwatch = this.notifications.watch(first.messageId, () => wakeup.notify());
    const poll = setInterval(() => wakeup.notify(), POLL_MS);
    try {
      let reply: Message | null = first;
      let position = from;
      while (reply) {
        const length = replyLength(reply.text);
        if (length > position) {
          const text = reply.text.slice(indexOfCodePoint(reply.text, position));
          position = length;
          yield { type: 'text', text, position };
        }
        // The end carries the reply's total, even to a listener that claimed to stand past it.
        if (reply.status === 'completed') return yield { type: 'end', message: reply, finishReason: reply.finishReason ?? 'stop', ...failureOf(reply), position: length };
        if (isStale(reply, this.jobs.staleBefore())) await this.jobs.sweepStale().catch(() => undefined);
        else if (!(await waits.until(wakeup.wait()))) return;
        const replyId: string = reply.messageId;
        const job = this.jobs.local(replyId);
        if (job) return yield* this.fromJob(job, position, signal);
        reply = await this.store.run((r) => r.messages.findById(replyId), { atomic: false });
      }
      yield { type: 'end', message: null, finishReason: 'cancelled', position };
    } finally {
      waits.dispose();
      unwatch();
      clearInterval(poll);
    }
  }
}

/** A reply stored as failed ends its streams with an `error` event carrying the stored detail. */
function failureOf(reply: Message): { failure?: unknown } {
  if (reply.finishReason !== 'error') return {};
  const detail = typeof reply.metadata.error === 'string' ? reply.metadata.error : 'the reply failed';
  return { failure: new ChatModelFailedError(detail) };
}

import { ChatModelFailedError, ReplyInterruptedError } from '../../domain/errors.js';
import type { TitleSource } from '../../domain/conversation.js';
import type { Message } from '../../domain/message.js';
import { indexOfCodePoint, isMoreOfInterrupted, isStale, replyLength } from '../../domain/reply.js';
import type { ReplyNotifications } from '../ports/reply-notifications.js';
import type { StoredReplies } from '../ports/stored-replies.js';
import type { ReplyJob } from './reply-job.js';
import type { ReplyJobs } from './reply-jobs.js';
import { FOLLOW_RENEW_MS } from './reply-broadcast.js';
import { AbortableWaits, Ticker, Wakeup } from './signals.js';

export type FeedEvent =
  /** The text after the listener's position; `position` is where it stands afterwards (code points). */
  | { type: 'text'; text: string; position: number }
  /** The conversation was named with this reply (its first): before the end. */
  | { type: 'title'; conversationId: string; title: string; titleSource: TitleSource; position: number }
  /** The end: the stored reply (null when it was removed), why it ended, and the failure for an `error` event. */
  | { type: 'end'; message: Message | null; finishReason: string; failure?: unknown; position: number };

export type FeedEnd = Extract<FeedEvent, { type: 'end' }>;

/** How often a follower of a reply produced elsewhere reads the stored reply, whatever the news says. */
const POLL_MS = 1000;

/**
 * A reply as a listener reads it, from any position: what is there, then what comes, then
 * the end. Pull-based: each read returns everything written since the last one, so a slow
 * listener costs nothing but its position (the text is shared: the producing job's here, or
 * the store's). A reply produced on this instance is read from its job (at once); one produced
 * elsewhere from the pieces its producer pushes, and from the store. The followers of an instance
 * poll the store and renew their follows on shared ticks, so their reads come together (and
 * `StoredReplies` may send them as one).
 */
export class ReplyFeed {
  private readonly polls = new Ticker(POLL_MS);
  private readonly renewals = new Ticker(FOLLOW_RENEW_MS);

  constructor(
    private readonly jobs: ReplyJobs,
    private readonly stored: StoredReplies,
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
    // A listener past the text so far (it says it holds more than there is) is sent nothing until the
    // text passes its position, then what follows it: never again what it says it holds.
    let position = from;
    /** Where `position` is in the job's text, once the text has reached it (-1 until then). */
    let index = -1;
    /** The number of the next piece to read, once this listener has caught up with the text (job.piecesFrom). */
    let next = -1;
    const waits = new AbortableWaits(signal);
    try {
      for (;;) {
        if (index < 0 && job.length >= position) index = indexOfCodePoint(job.text, position);
        if (index >= 0 && job.text.length > index) {
          const text = (next >= 0 ? job.piecesFrom(next) : undefined) ?? job.text.slice(index);
          next = job.pieceCount;
          index = job.text.length;
          position += replyLength(text);
          yield { type: 'text', text, position };
          continue;
        }
        if (job.end) {
          if (job.title) yield { type: 'title', conversationId: job.title.conversationId, title: job.title.title, titleSource: job.title.source, position: job.length };
          // The end carries the reply's whole length (a listener past it included).
          yield { type: 'end', ...job.end, position: job.length };
          return;
        }
        if (!(await waits.untilChange(job.changes))) return;
      }
    } finally {
      waits.dispose();
    }
  }

  /**
   * A reply produced elsewhere (or by nobody any more: it is swept up once stale). This instance
   * follows it: its producer pushes each piece (reply-broadcast.ts), placed here by position, and
   * the stored reply is read at the start, at its end, when news may have been lost, and at
   * least every second. The store lags behind the producer, so a listener may stand past the
   * stored text: it then waits for pieces or the store to catch up (clamping its position would
   * send again what it holds).
   */
  private async *fromStore(first: Message, from: number, signal: AbortSignal): AsyncGenerator<FeedEvent> {
    const replyId = first.messageId;
    const wakeup = new Wakeup();
    const waits = new AbortableWaits(signal);
    const pieces = new Pieces();
    // The store is read again once watching has begun: `first` may have been read just before the
    // reply ended (its job here gone since, or its end published before this follow), and would
    // otherwise wait for the next poll.
    let look = true;
    // Where the listener will stand once the stored text is sent: the producer publishes from there.
    let position = Math.max(from, replyLength(first.text));
    const unwatch = this.notifications.watch(replyId, (news) => {
      if (news.type === 'piece') pieces.add(news.from, news.text);
      else look = true;
      // News may have been lost: the producer is told again where this follower stands.
      if (news.type === 'look') this.notifications.follow(replyId, position);
      wakeup.notify();
    });
    this.notifications.follow(replyId, position);
    const stopRenewing = this.renewals.every(() => this.notifications.follow(replyId, position));
    const stopPolling = this.polls.every(() => {
      look = true;
      wakeup.notify();
    });
    let askedAt = position;
    // What the listener holds, when this follower knows all of it (not when it claimed more than was stored).
    let held: string | null = from <= replyLength(first.text) ? first.text.slice(0, indexOfCodePoint(first.text, from)) : null;
    let extended = false;
    try {
      let reply: Message | null = first;
      position = from;
      while (reply) {
        const length = replyLength(reply.text);
        if (length > position) {
          const text = reply.text.slice(indexOfCodePoint(reply.text, position));
          position = length;
          if (held !== null) held += text;
          yield { type: 'text', text, position };
        }
        if (reply.status === 'completed') {
          if (!extended && held !== null && isMoreOfInterrupted(reply, held)) {
            // Its producer died after publishing more than it stored: what the listener was sent is kept (the longest a follower holds).
            extended = true;
            reply = (await this.stored.extendInterrupted(replyId, held).catch(() => null)) ?? reply;
            continue;
          }
          // As from its producer, a reply followed while it was written says so before its end when it named
          // its conversation (a replay of a finished one does not, wherever it is asked for).
          const name = first.status === 'in_progress' ? await this.stored.namedBy(reply).catch(() => null) : null;
          if (name) yield { type: 'title', conversationId: reply.conversationId, title: name.title, titleSource: name.source, position: length };
          // The end carries the reply's total, even to a listener that claimed to stand past it.
          return yield { type: 'end', message: reply, finishReason: reply.finishReason ?? 'stop', ...failureOf(reply), position: length };
        }
        for (let text = pieces.take(position); text !== ''; text = pieces.take(position)) {
          position += replyLength(text);
          if (held !== null) held += text;
          yield { type: 'text', text, position };
        }
        if (pieces.waiting && askedAt !== position) {
          // Pieces beyond a gap: news was lost or came before this follow; ask again from here, once per position.
          askedAt = position;
          this.notifications.follow(replyId, position);
        }
        if (isStale(reply, this.jobs.staleBefore())) await this.jobs.sweepStale().catch(() => undefined);
        else if (!look && !(await waits.until(wakeup.wait()))) return;
        if (signal.aborted) return;
        const job = this.jobs.local(replyId);
        if (job) return yield* this.fromJob(job, position, signal);
        if (look || isStale(reply, this.jobs.staleBefore())) {
          look = false;
          reply = await this.stored.read(replyId);
        }
      }
      // Gone: removed before its first piece. Its ending says whether it was stopped or failed, as its producer's streams said.
      const ending = await this.stored.ending(replyId).catch(() => null);
      const finishReason = ending?.finishReason ?? 'cancelled';
      yield { type: 'end', message: null, finishReason, ...failureOfRemoved(finishReason, ending?.metadata.error), position };
    } finally {
      waits.dispose();
      unwatch();
      stopRenewing();
      stopPolling();
    }
  }
}

/** Most text a follower keeps beyond a gap (code units); past it, pieces wait for the store instead. */
const MAX_WAITING = 1 << 20;

/** Pieces of a reply that came from its producer, by position: taken in order, whatever order they came in. */
class Pieces {
  private readonly byStart = new Map<number, string>();
  private size = 0;

  /** Whether pieces beyond the listener's position wait for the text between. */
  get waiting(): boolean {
    return this.byStart.size > 0;
  }

  add(from: number, text: string): void {
    if (text === '' || this.size + text.length > MAX_WAITING) return;
    const held = this.byStart.get(from);
    if (held !== undefined && held.length >= text.length) return;
    this.byStart.set(from, text);
    this.size += text.length - (held?.length ?? 0);
  }

  /** The text that follows `position` without a gap (''), dropping what is behind it. */
  take(position: number): string {
    let best = '';
    for (const [start, text] of this.byStart) {
      const end = start + replyLength(text);
      if (end <= position) this.forget(start, text);
      else if (start <= position) {
        const rest = text.slice(indexOfCodePoint(text, position - start));
        if (rest.length > best.length) best = rest;
        this.forget(start, text);
      }
    }
    return best;
  }

  private forget(start: number, text: string): void {
    this.byStart.delete(start);
    this.size -= text.length;
  }
}

/** A reply removed before its first piece because it failed (or its producer stopped) ends its streams with an `error` event, as its producer's did. */
function failureOfRemoved(finishReason: string, detail: unknown): { failure?: unknown } {
  if (finishReason === 'interrupted') return { failure: new ReplyInterruptedError('the service stopped while writing this reply, before its first piece') };
  return modelFailure(finishReason, detail);
}

/** A reply stored as failed ends its streams with an `error` event carrying the stored detail. */
function failureOf(reply: Message): { failure?: unknown } {
  return modelFailure(reply.finishReason, reply.metadata.error);
}

/** For a reply that ended with `error`: the model's failure, with its stored detail. */
function modelFailure(finishReason: string | null, detail: unknown): { failure?: unknown } {
  if (finishReason !== 'error') return {};
  return { failure: new ChatModelFailedError(typeof detail === 'string' ? detail : 'the reply failed') };
}

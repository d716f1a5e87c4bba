import type { Clock } from '../ports/clock.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ReplySettings } from './reply-job.js';

/** Replies written in one statement at most (a flush of more writes several, one after another). */
const MAX_BATCH = 500;

/** What the writes need of a reply being produced (reply-job.ts). */
export interface WrittenReply {
  readonly replyId: string;
  readonly running: boolean;
  /** The text not yet stored, and where it starts in code points (taken now: the reply counts it as on its way). */
  takeUnwritten(): { from: number; text: string };
  /** The text taken was stored; `stillRunning` false when someone else finished the row. */
  wrote(text: string, stillRunning: boolean): void;
  /** Whether text came that no write has taken yet. */
  readonly behind: boolean;
}

/**
 * The progress writes of every reply this instance produces: each reply's new text (or, for one
 * with nothing new, a sign of life every third of the stale bound) is written at most
 * `writeIntervalMs` after it came, in one statement for all the replies due, one flush at a time.
 * A thousand replies streaming cost the database a few statements a second, not a thousand, and
 * leave its pool to the requests. A flush that fails (the database away for a moment) leaves its
 * replies' text to the next one.
 */
export class ReplyWrites {
  /** The replies being produced (kept alive). */
  private readonly replies = new Set<WrittenReply>();
  /** The replies with a write due at the next flush. */
  private readonly due = new Set<WrittenReply>();
  /** The flush under way, and the replies it writes. */
  private flushing: { done: Promise<void>; replies: Set<WrittenReply> } | null = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly keepAlive: NodeJS.Timeout;

  constructor(
    private readonly store: UnitOfWork,
    private readonly clock: Clock,
    private readonly settings: ReplySettings,
  ) {
    this.keepAlive = setInterval(() => {
      for (const reply of this.replies) this.due.add(reply);
      this.flushSoon();
    }, Math.max(100, Math.floor(settings.staleMs / 3)));
    this.keepAlive.unref();
  }

  /** A reply begins: it is kept alive until `remove`. */
  add(reply: WrittenReply): void {
    this.replies.add(reply);
  }

  /** A reply ends (its end is stored whole): the write of it under way to wait for, if any. */
  remove(reply: WrittenReply): Promise<void> | null {
    this.replies.delete(reply);
    this.due.delete(reply);
    return this.flushing?.replies.has(reply) ? this.flushing.done : null;
  }

  /** The reply has new text: it is written at the next flush, at most a write interval from now. */
  soon(reply: WrittenReply): void {
    if (!this.replies.has(reply)) return;
    this.due.add(reply);
    this.flushSoon();
  }

  /** Stops the keep-alive (every reply has ended by now). */
  close(): void {
    clearInterval(this.keepAlive);
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private flushSoon(): void {
    if (this.timer || this.flushing || this.due.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.settings.writeIntervalMs);
  }

  private flush(): void {
    if (this.flushing) return;
    const batch = [...this.due].filter((reply) => reply.running);
    this.due.clear();
    if (batch.length === 0) return;
    const replies = new Set(batch);
    const done = this.write(batch).finally(() => {
      this.flushing = null;
      for (const reply of batch) if (reply.behind && reply.running && this.replies.has(reply)) this.due.add(reply);
      this.flushSoon();
    });
    this.flushing = { done, replies };
  }

  private async write(batch: WrittenReply[]): Promise<void> {
    for (let at = 0; at < batch.length; at += MAX_BATCH) {
      const writes = batch.slice(at, at + MAX_BATCH).map((reply) => ({ reply, replyId: reply.replyId, ...reply.takeUnwritten() }));
      try {
        const stillRunning = new Set(await this.store.run((r) => r.replies.advance(writes, this.clock.now()), { atomic: false }));
        for (const { reply, replyId, text } of writes) reply.wrote(text, stillRunning.has(replyId));
      } catch {
        // The database is away: the next write carries this text too.
      }
    }
  }
}

import type { Message } from '../../domain/message.js';
import { staleBefore } from '../../domain/reply.js';
import type { Clock } from '../ports/clock.js';
import type { ReplyNotifications } from '../ports/reply-notifications.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { TokenUsage } from '../ports/chat-model.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';
import { ReplyBroadcast } from './reply-broadcast.js';
import { ReplyJob, TITLES_AT_ONCE_UNDER, TITLES_QUIET_MS, TITLES_WAIT_MS, type Naming, type ReplySource, type ReplySettings } from './reply-job.js';
import { ReplyWrites } from './reply-writes.js';
import { delay } from './signals.js';

/**
 * The replies this instance produces. Generation belongs to the service, not to a request:
 * a job runs to its end whoever listens, stops when asked (from any instance), and on
 * shutdown is given until the deadline, then stored as interrupted. Replies whose producer
 * died (on any instance) are swept up as interrupted once stale.
 */
export class ReplyJobs {
  private readonly jobs = new Map<string, ReplyJob>();
  /** The jobs other instances follow (reply-broadcast.ts). */
  private readonly broadcasts = new Map<string, ReplyBroadcast>();
  /** Their progress, written for all of them together. */
  private readonly writes: ReplyWrites;
  private readonly sweep: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private readonly unfollow: () => void;
  /** Set once the shutdown's deadline has passed: a job started after it is interrupted at once. */
  private pastDeadline = false;
  /** Jobs whose first piece has not come yet. */
  private awaitingFirstWords = 0;
  /** Titles of a busy instance, waiting until no job awaits its first piece (or `titlesWaitMs`). */
  private titlesWaiting: (() => unknown)[] = [];
  private titlesTimer: NodeJS.Timeout | undefined;
  /** When the last reply started here (ms), and the timer that looks again once that is `titlesQuietMs` ago. */
  private lastStart = -Infinity;
  private quietTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: UnitOfWork,
    private readonly notifications: ReplyNotifications,
    private readonly clock: Clock,
    readonly settings: ReplySettings,
    private readonly usage?: UsageRecorder,
  ) {
    this.writes = new ReplyWrites(store, clock, settings);
    this.unsubscribe = notifications.onStopRequest((replyId) => this.jobs.get(replyId)?.stop('cancelled'));
    this.unfollow = notifications.onFollow((replyId, from) => this.followed(replyId, from));
    this.sweep = setInterval(() => void this.sweepStale().catch(() => undefined), Math.max(250, Math.floor(settings.staleMs / 2)));
    this.sweep.unref();
  }

  /**
   * Starts producing an opened reply; its tokens are counted at its end (`estimate`: for a reply
   * the model gave no count of).
   */
  start(reply: Message, source: ReplySource, naming?: Naming, estimate?: (text: string) => TokenUsage): ReplyJob {
    const tokens = this.usage ? { recorder: this.usage, estimate } : undefined;
    // A quiet instance asks for the title beside the reply; a busy one once the first pieces are out (firstWordsOut).
    const atOnce = this.jobs.size < (this.settings.titlesAtOnceUnder ?? TITLES_AT_ONCE_UNDER);
    if (atOnce) void naming?.propose?.();
    const later = atOnce ? undefined : naming?.propose;
    this.awaitingFirstWords++;
    this.lastStart = this.clock.now().getTime();
    let awaiting = true;
    const firstWords = (came = true) => {
      if (!awaiting) return;
      awaiting = false;
      // A reply that ended without a piece asks for no title (its end asked for one if it answered).
      this.firstWordsOut(came ? later : undefined);
    };
    const job = new ReplyJob(reply, source, this.store, this.writes, this.clock, this.settings, naming, tokens, firstWords);
    this.jobs.set(reply.messageId, job);
    void job.done.finally(() => {
      firstWords(false);
      this.jobs.delete(reply.messageId);
      this.broadcasts.delete(reply.messageId);
    });
    if (this.pastDeadline) job.stop('interrupted');
    return job;
  }

  /**
   * A job's first piece is out (or it ended without one). Its title, when it waits, is asked
   * once no job here awaits its first piece and none has started for `titlesQuietMs`, or
   * `titlesWaitMs` after the first title began to wait, a macrotask later (the piece's listeners
   * have written it): a burst of new conversations gets its first words out before the model is
   * asked for their titles.
   */
  private firstWordsOut(title: (() => unknown) | undefined): void {
    this.awaitingFirstWords--;
    if (title) this.titlesWaiting.push(title);
    if (this.titlesWaiting.length === 0) return;
    if (!this.titlesTimer) {
      this.titlesTimer = setTimeout(() => this.askTitles(), this.settings.titlesWaitMs ?? TITLES_WAIT_MS);
      this.titlesTimer.unref();
    }
    if (this.awaitingFirstWords === 0) this.askTitlesOnceQuiet();
  }

  /** Asks for the waiting titles once no reply has started here for `titlesQuietMs` (and none awaits its first piece then). */
  private askTitlesOnceQuiet(): void {
    if (this.quietTimer) return;
    const left = this.lastStart + (this.settings.titlesQuietMs ?? TITLES_QUIET_MS) - this.clock.now().getTime();
    if (left <= 0) return this.askTitles();
    this.quietTimer = setTimeout(() => {
      this.quietTimer = undefined;
      if (this.awaitingFirstWords === 0 && this.titlesWaiting.length > 0) this.askTitlesOnceQuiet();
    }, left);
    this.quietTimer.unref();
  }

  private askTitles(): void {
    clearTimeout(this.titlesTimer);
    this.titlesTimer = undefined;
    clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
    const waiting = this.titlesWaiting;
    this.titlesWaiting = [];
    setImmediate(() => {
      for (const propose of waiting) void propose();
    });
  }

  /** The job producing this reply here, if any. */
  local(replyId: string): ReplyJob | undefined {
    return this.jobs.get(replyId);
  }

  /** Another instance follows a reply: when it is produced here, it is published from `from` on. */
  private followed(replyId: string, from: number): void {
    const job = this.jobs.get(replyId);
    if (!job) return;
    let broadcast = this.broadcasts.get(replyId);
    if (!broadcast) this.broadcasts.set(replyId, (broadcast = new ReplyBroadcast(job, this.notifications, () => this.clock.now().getTime())));
    broadcast.followed(from);
  }

  /** Asks whoever produces the reply, here or on another instance, to stop it. */
  async requestStop(replyId: string): Promise<void> {
    const job = this.jobs.get(replyId);
    if (job) job.stop('cancelled');
    else await this.notifications.requestStop(replyId);
  }

  /** The moment before which a reply in progress with no sign of life is stale (domain/reply.ts). */
  staleBefore(): Date {
    return staleBefore(this.clock.now(), this.settings.staleMs);
  }

  /** Finishes, as interrupted, the replies that are stale now (on any instance). */
  async sweepStale(): Promise<number> {
    return this.store.run((r) => r.replies.interruptStale(this.staleBefore(), this.clock.now()), { atomic: false });
  }

  /**
   * Shutdown: the replies running (and any that requests still in flight start meanwhile) may
   * finish until `deadline`; those still running then are stopped as interrupted (their streams
   * end with an error) and stored. A job started after that is interrupted at once.
   */
  async shutdown(deadline: Date): Promise<void> {
    clearInterval(this.sweep);
    this.unsubscribe();
    const timeUp = delay(deadline.getTime() - this.clock.now().getTime());
    let late = false;
    void timeUp.elapsed.then(() => (late = true));
    while (this.jobs.size > 0 && !late) await Promise.race([this.anyDone(), timeUp.elapsed]);
    timeUp.cancel();
    this.pastDeadline = true;
    const running = [...this.jobs.values()];
    for (const job of running) job.stop('interrupted');
    await Promise.all(running.map((job) => job.done));
    this.writes.close();
    // Followers elsewhere were served to the last end.
    this.unfollow();
  }

  private anyDone(): Promise<unknown> {
    return Promise.race([...this.jobs.values()].map((job) => job.done));
  }
}

import { indexOfCodePoint } from '../../domain/reply.js';
import type { ReplyNotifications } from '../ports/reply-notifications.js';
import type { ReplyJob } from './reply-job.js';

/** How often a follower says again that it follows (with where it stands). */
export const FOLLOW_RENEW_MS = 2000;
/** A producer publishes a reply for this long after the last follow it heard of it. */
export const FOLLOW_LEASE_MS = 3 * FOLLOW_RENEW_MS;

/**
 * A reply this instance produces, pushed to the instances that follow it: from the position a
 * follower gives, then every piece as it comes (one `publish` per wake-up of the job, however
 * many pieces came meanwhile), then its end once stored. Nothing is published for a reply that
 * nobody follows, and a reply stops being published when no follow has renewed its lease.
 */
export class ReplyBroadcast {
  /** Code points published so far, and the same position as an index into the job's text. */
  private sent = 0;
  private sentIndex = 0;
  private leaseUntil = 0;
  private running = false;

  constructor(
    private readonly job: ReplyJob,
    private readonly notifications: ReplyNotifications,
    private readonly now: () => number,
  ) {}

  /** A follower stands at `from`: what it lacks is published now, and the lease renewed. */
  followed(from: number): void {
    this.leaseUntil = this.now() + FOLLOW_LEASE_MS;
    if (!this.running) {
      // Not being published: start at the follower's position (nobody needs what is before it).
      this.sent = Math.max(0, Math.min(from, this.job.length));
      this.sentIndex = indexOfCodePoint(this.job.text, this.sent);
      void this.run();
    } else if (from < this.sent) {
      // Behind what was published (it came later, or lost news): the text from its position, once.
      const text = this.job.text.slice(indexOfCodePoint(this.job.text, Math.max(0, from)), this.sentIndex);
      this.notifications.publish({ type: 'piece', replyId: this.job.replyId, from: Math.max(0, from), text });
    }
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      for (;;) {
        const ended = this.job.end !== null;
        if (!ended && this.now() > this.leaseUntil) return;
        if (this.job.text.length > this.sentIndex) {
          const text = this.job.text.slice(this.sentIndex);
          this.notifications.publish({ type: 'piece', replyId: this.job.replyId, from: this.sent, text });
          this.sent = this.job.length;
          this.sentIndex = this.job.text.length;
        }
        if (ended) return this.notifications.publish({ type: 'end', replyId: this.job.replyId });
        await this.job.changes.next();
      }
    } finally {
      this.running = false;
    }
  }
}

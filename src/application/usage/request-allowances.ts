import type { Clock } from '../ports/clock.js';
import type { UsageLedger } from '../ports/usage-ledger.js';

const MINUTE_MS = 60_000;
/** A claim asks for this share of what the minute has left (at least one request). */
const CLAIM_SHARE = 1 / 8;
/** After the ledger said a minute is used up, requests are refused here without asking again for this long. */
const EXHAUSTED_MS = 1000;

/** A limit as a client sees it: the quota, what is left of it, and when it starts again. */
export interface LimitState {
  limit: number;
  remaining: number;
  resetMs: number;
}

export interface Taken {
  granted: boolean;
  window: number;
  state: LimitState;
}

interface Lease {
  /** The minute (ms since the epoch at its start). */
  window: number;
  /** Requests claimed by this instance and not used yet. */
  left: number;
  /** What the minute had granted in all, to every instance, at this instance's last claim. */
  total: number;
  /** Whether a request used this lease since the last look at idle leases. */
  used: boolean;
  claiming: Promise<void> | null;
  exhaustedAt: number | null;
}

/**
 * Requests per minute under a limit, held across instances without a statement per request:
 * each instance claims requests of a user's minute from the ledger in blocks (an eighth of what
 * the minute has left, at least one) and hands them out locally. The ledger never grants more
 * than the limit in all, so instances together never admit more than the limit: no overshoot.
 * Near the limit blocks shrink to one request, so the last ones each cost a round trip; a block
 * an instance stops using is given back within two ticks, so it holds back at most one block
 * from the others meanwhile.
 */
export class RequestAllowances {
  private readonly leases = new Map<string, Lease>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly ledger: UsageLedger,
    private readonly clock: Clock,
    tickMs: number,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.timer = setInterval(() => this.releaseIdle().catch(this.onError), tickMs);
    this.timer.unref();
  }

  /**
   * One request of the user's current minute, if the limit allows it: whether it was granted, and
   * the state after. At once (no promise) while this instance holds requests of the user's minute.
   */
  take(userId: string, limit: number): Taken | Promise<Taken> {
    const lease = this.leaseOf(userId);
    if (lease.left > 0) return this.takeFrom(lease, limit);
    return this.claimAndTake(userId, limit);
  }

  private takeFrom(lease: Lease, limit: number): Taken {
    lease.left -= 1;
    lease.used = true;
    return { granted: true, window: lease.window, state: this.stateOf(lease, limit) };
  }

  private async claimAndTake(userId: string, limit: number): Promise<Taken> {
    for (;;) {
      const lease = this.leaseOf(userId);
      if (lease.left > 0) return this.takeFrom(lease, limit);
      if (lease.claiming) {
        await lease.claiming;
        continue;
      }
      const now = this.clock.now().getTime();
      if (lease.exhaustedAt !== null && now - lease.exhaustedAt < EXHAUSTED_MS) return { granted: false, window: lease.window, state: this.stateOf(lease, limit) };
      const wanted = Math.max(1, Math.floor((limit - lease.total) * CLAIM_SHARE));
      lease.claiming = this.ledger.claimRequests(userId, lease.window, wanted, limit).then(
        ({ granted, total }) => {
          lease.left += granted;
          lease.total = total;
          lease.exhaustedAt = granted === 0 ? now : null;
        },
      ).finally(() => (lease.claiming = null));
      await lease.claiming;
      if (lease.left === 0) return { granted: false, window: lease.window, state: this.stateOf(lease, limit) };
    }
  }

  /** The user's state without taking a request (for the headers of a request another limit refused). */
  peek(userId: string, limit: number): LimitState {
    return this.stateOf(this.leaseOf(userId), limit);
  }

  /** A request taken and then not used after all (the client's mistake): its place is free again. */
  giveBack(userId: string, window: number): void {
    const lease = this.leases.get(userId);
    if (lease?.window === window) lease.left += 1;
  }

  /** Gives back every block still held (at shutdown). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    for (const lease of this.leases.values()) lease.used = false;
    await this.releaseIdle();
  }

  /** Forgets past minutes, and gives back the blocks that no request used since the last look. */
  async releaseIdle(): Promise<void> {
    const current = this.windowAt(this.clock.now().getTime());
    const releases: { userId: string; window: number; count: number }[] = [];
    for (const [userId, lease] of this.leases) {
      if (lease.window !== current) {
        if (!lease.claiming) this.leases.delete(userId);
        continue;
      }
      if (!lease.used && lease.left > 0 && !lease.claiming) {
        releases.push({ userId, window: lease.window, count: lease.left });
        lease.total -= lease.left;
        lease.left = 0;
      }
      lease.used = false;
    }
    await this.ledger.releaseRequests(releases);
  }

  private leaseOf(userId: string): Lease {
    const window = this.windowAt(this.clock.now().getTime());
    let lease = this.leases.get(userId);
    if (lease?.window !== window && !lease?.claiming) {
      lease = { window, left: 0, total: 0, used: false, claiming: null, exhaustedAt: null };
      this.leases.set(userId, lease);
    }
    return lease!;
  }

  private stateOf(lease: Lease, limit: number): LimitState {
    const now = this.clock.now().getTime();
    return { limit, remaining: Math.max(0, limit - (lease.total - lease.left)), resetMs: Math.max(0, lease.window + MINUTE_MS - now) };
  }

  private windowAt(ms: number): number {
    return ms - (ms % MINUTE_MS);
  }
}

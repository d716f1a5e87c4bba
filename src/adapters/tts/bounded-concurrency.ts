export interface ConcurrencyLimits {
  /** Tasks that may run at once (at least 1). */
  maxRunning: number;
  /** Tasks that may wait for a turn; one more is refused. */
  maxWaiting: number;
}

interface Waiter {
  start(): void;
}

/**
 * Runs at most `maxRunning` tasks at once; up to `maxWaiting` more wait their turn in order,
 * and past that `run` throws `refuse()` at once. A waiting task whose signal aborts leaves
 * the queue and rejects with the signal's reason. (Hand-written rather than p-queue: p-queue 9+
 * needs Node 22, and what is needed here is small: a bounded queue that honours aborts and a
 * turn that can be held across an iteration, not only around one promise.)
 */
export class BoundedConcurrency {
  private active = 0;
  private readonly queue: Waiter[] = [];

  constructor(
    private readonly limits: ConcurrencyLimits,
    private readonly refuse: (limits: ConcurrencyLimits) => Error,
  ) {
    if (!(limits.maxRunning >= 1)) throw new RangeError('maxRunning must be at least 1');
  }

  get running(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  /** Waits for a turn (or throws `refuse()` / the signal's reason); the function returned ends it, once. */
  async turn(signal?: AbortSignal): Promise<() => void> {
    await this.acquire(signal);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  private acquire(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.active < this.limits.maxRunning) {
      this.active++;
      return Promise.resolve();
    }
    if (this.queue.length >= this.limits.maxWaiting) return Promise.reject(this.refuse(this.limits));
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  private release(): void {
    const next = this.queue.shift();
    // The slot passes straight to the next task, so `active` stays as it is.
    if (next) next.start();
    else this.active--;
  }
}

/** Something changed, for one waiter: a change while nobody waits is kept for the next wait. */
export class Wakeup {
  private pending = false;
  private resolve: (() => void) | undefined;

  notify(): void {
    const resolve = this.resolve;
    this.resolve = undefined;
    if (resolve) resolve();
    else this.pending = true;
  }

  wait(): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => (this.resolve = resolve));
  }
}

/** Something changed, for any number of waiters, who look at the state before they wait (in the same tick). */
export class Changes {
  private waiting: { promise: Promise<void>; resolve: () => void } | null = null;
  private callbacks: (() => void)[] = [];

  notify(): void {
    this.waiting?.resolve();
    this.waiting = null;
    if (this.callbacks.length === 0) return;
    const callbacks = this.callbacks;
    this.callbacks = [];
    for (const callback of callbacks) callback();
  }

  /** Calls `callback` once, at the next change: a waiter that waits once per piece needs no promise of the change's. */
  once(callback: () => void): void {
    this.callbacks.push(callback);
  }

  next(): Promise<void> {
    if (!this.waiting) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.waiting = { promise, resolve };
    }
    return this.waiting.promise;
  }
}

/**
 * The waits of one reader that waits many times until a signal aborts (a listener of a reply
 * waits once per piece): one abort listener for all of them, rather than one added and removed
 * per wait, which at thousands of streams is most of what a wait costs. One wait at a time;
 * `dispose` when done.
 */
export class AbortableWaits {
  private wake: ((settled: boolean) => void) | undefined;
  private readonly onAbort = () => {
    const wake = this.wake;
    this.wake = undefined;
    wake?.(false);
  };

  constructor(private readonly signal: AbortSignal) {
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Whether `changes` changed before the signal aborted. */
  untilChange(changes: Pick<Changes, 'once'>): Promise<boolean> {
    return this.wait((settled) => changes.once(settled));
  }

  /** Whether `promise` settled before the signal aborted. */
  until(promise: Promise<unknown>): Promise<boolean> {
    return this.wait((settled) => void promise.then(settled));
  }

  /** Whether what `subscribe` is told of came before the signal aborted (it calls `settled` when it comes). */
  private wait(subscribe: (settled: () => void) => void): Promise<boolean> {
    if (this.signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.wake = resolve;
      subscribe(() => {
        if (this.wake !== resolve) return; // aborted first
        this.wake = undefined;
        resolve(true);
      });
    });
  }

  dispose(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    this.wake = undefined;
  }
}

/** A timer as a promise (it keeps the process alive while it runs), and how to cancel it. */
export function delay(ms: number): { elapsed: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))));
  return { elapsed, cancel: () => clearTimeout(timer) };
}

/**
 * One timer for many who each want to be called every `ms`: a thousand followers of replies wake
 * together, so what each then does (a read of the store, a renewed follow) can go out together.
 * The timer runs while someone is called (and does not keep the process alive).
 */
export class Ticker {
  private readonly callbacks = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {}

  /** Calls `callback` at every tick until the returned function is called. */
  every(callback: () => void): () => void {
    const entry = () => callback();
    this.callbacks.add(entry);
    if (!this.timer) {
      this.timer = setInterval(() => {
        for (const call of this.callbacks) call();
      }, this.ms);
      this.timer.unref();
    }
    return () => {
      this.callbacks.delete(entry);
      if (this.callbacks.size === 0) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }
}

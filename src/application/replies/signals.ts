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

  notify(): void {
    this.waiting?.resolve();
    this.waiting = null;
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

/** Whether `promise` settled before `signal` aborted. */
export function untilAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    });
  });
}

/** A timer as a promise (it keeps the process alive while it runs), and how to cancel it. */
export function delay(ms: number): { elapsed: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))));
  return { elapsed, cancel: () => clearTimeout(timer) };
}

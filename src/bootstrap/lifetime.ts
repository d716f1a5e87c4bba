/** Anything the service opens and must close on shutdown: a connection pool, a driver, worker threads. */
export interface Closeable {
  close(): void | Promise<void>;
}

/**
 * What the composition root opened, closed in the reverse order on shutdown (what was opened
 * last may depend on what was opened first). Adapters a caller supplied are not owned here.
 */
export class Lifetime {
  private readonly opened: Closeable[] = [];

  /** Owns `resource` when it has something to close (a `close` method); returns it either way. */
  own<T extends object>(resource: T): T {
    if (typeof (resource as Partial<Closeable>).close === 'function') this.opened.push(resource as unknown as Closeable);
    return resource;
  }

  /** Closes everything, each even if another failed; the first failure is thrown at the end. */
  async close(): Promise<void> {
    let failure: unknown;
    for (const resource of this.opened.splice(0).reverse()) {
      try {
        await resource.close();
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  }
}

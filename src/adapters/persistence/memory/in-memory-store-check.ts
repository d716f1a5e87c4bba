import type { DependencyCheck, DependencyState } from '../../../application/ports/dependency-check.js';

/** The in-memory store lives in the process, so it is ready whenever the process is. */
export class InMemoryStoreCheck implements DependencyCheck {
  readonly name = 'database';
  readonly required = true;

  async check(): Promise<DependencyState> {
    return { ok: true, detail: 'in-memory store (data is lost on restart)' };
  }
}

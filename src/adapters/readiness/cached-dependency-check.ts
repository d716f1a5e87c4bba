import type { Clock } from '../../application/ports/clock.js';
import type { DependencyCheck, DependencyState } from '../../application/ports/dependency-check.js';

/**
 * A dependency check answered from its last result for `ttlMs`, so a storm of readiness
 * probes asks the upstream at most once per period. Callers that arrive while a check runs
 * share it; failures are kept like successes (an outage is exactly when upstreams need quiet).
 */
export class CachedDependencyCheck implements DependencyCheck {
  readonly name: string;
  readonly required: boolean;
  private last: { state: DependencyState; at: number } | undefined;
  private inFlight: Promise<DependencyState> | undefined;

  constructor(
    private readonly inner: DependencyCheck,
    private readonly ttlMs: number,
    private readonly clock: Clock,
  ) {
    this.name = inner.name;
    this.required = inner.required;
  }

  check(): Promise<DependencyState> {
    const now = this.clock.now().getTime();
    if (this.last && now >= this.last.at && now - this.last.at < this.ttlMs) return Promise.resolve(this.last.state);
    return (this.inFlight ??= this.refresh().finally(() => (this.inFlight = undefined)));
  }

  private async refresh(): Promise<DependencyState> {
    let state: DependencyState;
    try {
      state = await this.inner.check();
    } catch (error) {
      state = { ok: false, detail: error instanceof Error ? error.message : 'check failed' };
    }
    this.last = { state, at: this.clock.now().getTime() };
    return state;
  }
}

import { expect } from 'chai';
import type { Clock } from '../../../src/application/ports/clock.js';
import type { DependencyCheck, DependencyState } from '../../../src/application/ports/dependency-check.js';
import { CachedDependencyCheck } from '../../../src/adapters/readiness/cached-dependency-check.js';

class ManualClock implements Clock {
  ms = 1_000_000;
  now(): Date {
    return new Date(this.ms);
  }
}

/** Counts its calls; answers `next`, or waits for `release()` when `hold` is set. */
class CountingCheck implements DependencyCheck {
  readonly name = 'graph_database';
  readonly required = false;
  calls = 0;
  next: DependencyState | Error = { ok: true };
  hold = false;
  private waiting: (() => void)[] = [];

  async check(): Promise<DependencyState> {
    this.calls += 1;
    if (this.hold) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.next instanceof Error) throw this.next;
    return this.next;
  }

  release(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

describe('CachedDependencyCheck', () => {
  let clock: ManualClock;
  let inner: CountingCheck;
  let cached: CachedDependencyCheck;
  beforeEach(() => {
    clock = new ManualClock();
    inner = new CountingCheck();
    cached = new CachedDependencyCheck(inner, 5000, clock);
  });

  it('keeps the name and required flag of the check it wraps', () => {
    expect(cached).to.include({ name: 'graph_database', required: false });
  });

  it('answers from the last result within the TTL and asks again after it', async () => {
    for (let i = 0; i < 10; i++) expect(await cached.check()).to.deep.equal({ ok: true });
    expect(inner.calls).to.equal(1);
    clock.ms += 4999;
    await cached.check();
    expect(inner.calls).to.equal(1);
    clock.ms += 1;
    inner.next = { ok: false, detail: 'connection refused' };
    expect(await cached.check()).to.deep.equal({ ok: false, detail: 'connection refused' });
    expect(inner.calls).to.equal(2);
  });

  it('callers arriving while a check runs share it', async () => {
    inner.hold = true;
    const pending = [cached.check(), cached.check(), cached.check()];
    inner.release();
    expect(await Promise.all(pending)).to.deep.equal([{ ok: true }, { ok: true }, { ok: true }]);
    expect(inner.calls).to.equal(1);
  });

  it('keeps failures too, a thrown error becoming a failed state', async () => {
    inner.next = new Error('socket hang up');
    expect(await cached.check()).to.deep.equal({ ok: false, detail: 'socket hang up' });
    expect(await cached.check()).to.deep.equal({ ok: false, detail: 'socket hang up' });
    expect(inner.calls).to.equal(1);
  });

  it('a TTL of 0 asks every time, still sharing a check in flight', async () => {
    cached = new CachedDependencyCheck(inner, 0, clock);
    await cached.check();
    await cached.check();
    expect(inner.calls).to.equal(2);
    inner.hold = true;
    const both = Promise.all([cached.check(), cached.check()]);
    inner.release();
    await both;
    expect(inner.calls).to.equal(3);
  });

  it('a clock that steps back does not keep an old result forever', async () => {
    await cached.check();
    clock.ms -= 60_000;
    await cached.check();
    expect(inner.calls).to.equal(2);
  });
});

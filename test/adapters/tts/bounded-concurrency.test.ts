import { expect } from 'chai';
import { BoundedConcurrency } from '../../../src/adapters/tts/bounded-concurrency.js';

class Full extends Error {}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('BoundedConcurrency', () => {
  const limiter = (maxRunning: number, maxWaiting: number) => new BoundedConcurrency({ maxRunning, maxWaiting }, () => new Full('full'));

  it('runs up to maxRunning at once, queues up to maxWaiting, refuses the next at once', async () => {
    const limits = limiter(2, 1);
    const g = gate();
    const started: number[] = [];
    const task = (n: number) => async () => {
      started.push(n);
      await g.opened;
      return n;
    };
    const runs = [1, 2, 3].map((n) => limits.run(task(n)));
    await Promise.resolve();
    expect(started).to.deep.equal([1, 2]);
    expect([limits.running, limits.waiting]).to.deep.equal([2, 1]);
    const refused = await limits.run(task(4)).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(Full);
    g.open();
    expect(await Promise.all(runs)).to.deep.equal([1, 2, 3]);
    expect(started).to.deep.equal([1, 2, 3]);
    expect([limits.running, limits.waiting]).to.deep.equal([0, 0]);
  });

  it('a failing task frees its slot', async () => {
    const limits = limiter(1, 1);
    await limits.run(async () => Promise.reject(new Error('boom'))).catch(() => {});
    expect(await limits.run(async () => 'next')).to.equal('next');
    expect(limits.running).to.equal(0);
  });

  it('a waiting task whose signal aborts leaves the queue with the reason and never runs', async () => {
    const limits = limiter(1, 5);
    const g = gate();
    const first = limits.run(() => g.opened);
    const controller = new AbortController();
    let ran = false;
    const second = limits.run(async () => {
      ran = true;
    }, controller.signal);
    const reason = new Error('too late');
    controller.abort(reason);
    expect(await second.catch((e: unknown) => e)).to.equal(reason);
    expect(limits.waiting).to.equal(0);
    g.open();
    await first;
    expect(ran).to.equal(false);
    expect(limits.running).to.equal(0);
  });

  it('maxWaiting 0 means no queue at all', async () => {
    const limits = limiter(1, 0);
    const g = gate();
    const first = limits.run(() => g.opened);
    expect(await limits.run(async () => 1).catch((e: unknown) => e)).to.be.instanceOf(Full);
    g.open();
    await first;
  });
});

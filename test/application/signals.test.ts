import { expect } from 'chai';
import { AbortableWaits, Changes } from '../../src/application/replies/signals.js';

describe('Changes and AbortableWaits', () => {
  it('once: each callback is called at the next change only, whoever else waits by promise', async () => {
    const changes = new Changes();
    const calls: string[] = [];
    changes.once(() => calls.push('a'));
    const next = changes.next().then(() => calls.push('promise'));
    changes.notify();
    changes.once(() => calls.push('b'));
    changes.notify();
    changes.notify();
    await next;
    expect(calls).to.deep.equal(['a', 'b', 'promise']);
  });

  it('untilChange: true when the changes come first, false when the signal aborts first (a later change is then ignored)', async () => {
    const changes = new Changes();
    const abort = new AbortController();
    const waits = new AbortableWaits(abort.signal);
    const first = waits.untilChange(changes);
    changes.notify();
    expect(await first).to.equal(true);
    const second = waits.untilChange(changes);
    abort.abort();
    changes.notify();
    expect(await second).to.equal(false);
    expect(await waits.untilChange(changes)).to.equal(false);
    waits.dispose();
  });
});

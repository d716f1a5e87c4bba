import { expect } from 'chai';
import type { UsageDelta, UsageLedger } from '../../src/application/ports/usage-ledger.js';
import type { LimitValues, UserLimits } from '../../src/application/ports/user-limits.js';
import { RequestAllowances } from '../../src/application/usage/request-allowances.js';
import { estimatedUsage } from '../../src/application/usage/estimated-usage.js';
import { UsageLimits } from '../../src/application/usage/usage-limits.js';
import { UsageMeter } from '../../src/application/usage/usage-meter.js';
import { GetUsage } from '../../src/application/use-cases/get-usage.js';
import { InMemoryUsageLedger } from '../../src/adapters/persistence/memory/in-memory-usage-ledger.js';
import { JsonFilePersonaSource } from '../../src/adapters/persona/json-file-persona-source.js';
import { OfflineChatModel } from '../../src/adapters/llm/offline/offline-chat-model.js';
import { FieldInvalidError, UsageLimitReachedError } from '../../src/domain/errors.js';
import { estimateTokens } from '../../src/domain/usage.js';

/** A clock the test moves. */
class TestClock {
  constructor(public ms = Date.parse('2026-11-22T10:00:30.000Z')) {}
  now = () => new Date(this.ms);
}

/** A ledger that counts its calls, and fails while told to. */
/** Stores each sync at once, but answers it only when let go: stored, not yet known to be. */
class SlowLedger extends InMemoryUsageLedger {
  release: (() => void) | null = null;
  reading: (() => void) | null = null;
  slowReads = false;
  slowSyncs = true;
  override async sync(deltas: UsageDelta[], day: string, users: string[]) {
    const totals = await super.sync(deltas, day, users);
    if (this.slowSyncs) await new Promise<void>((resolve) => (this.release = resolve));
    this.release = null;
    return totals;
  }
  override async days(userId: string, from: string, to: string) {
    if (this.slowReads) await new Promise<void>((resolve) => (this.reading = resolve));
    return super.days(userId, from, to);
  }
}

class CountingLedger extends InMemoryUsageLedger {
  syncs = 0;
  claims = 0;
  failing = false;
  override async sync(deltas: UsageDelta[], day: string, users: string[]) {
    this.syncs++;
    if (this.failing) throw new Error('the database is away');
    return super.sync(deltas, day, users);
  }
  override async claimRequests(userId: string, window: number, wanted: number, limit: number) {
    this.claims++;
    return super.claimRequests(userId, window, wanted, limit);
  }
}

const limitsOf = (values: Partial<LimitValues>, enabled = true): UserLimits => ({
  enabled,
  limitsFor: () => ({ requestsPerMinute: null, tokensPerDay: null, ...values }),
});

const HOUR = 3_600_000;
const meters: UsageMeter[] = [];
const allowanceSets: RequestAllowances[] = [];
const meterOn = (ledger: UsageLedger, clock: TestClock, options: Partial<ConstructorParameters<typeof UsageMeter>[2]> = {}) => {
  const meter = new UsageMeter(ledger, clock, { syncIntervalMs: HOUR, ...options });
  meters.push(meter);
  return meter;
};
const allowancesOn = (ledger: UsageLedger, clock: TestClock) => {
  const allowances = new RequestAllowances(ledger, clock, HOUR);
  allowanceSets.push(allowances);
  return allowances;
};

describe('usage: the meter, the request allowances and the limits', () => {
  afterEach(async () => {
    await Promise.all(meters.splice(0).map((meter) => meter.close().catch(() => undefined)));
    await Promise.all(allowanceSets.splice(0).map((allowances) => allowances.close()));
  });

  describe('UsageMeter', () => {
    it('reads the days between syncs: counts stored while a sync is still in flight are not added twice, nor a sync started during the read missed', async () => {
      const ledger = new SlowLedger();
      const meter = meterOn(ledger, new TestClock());
      const day = '2026-11-22';
      meter.countSpeech('alice', 10);
      const syncing = meter.sync();
      await new Promise((resolve) => setImmediate(resolve));
      const read = meter.days('alice', day, day);
      ledger.release!();
      await syncing;
      expect((await read)[0]?.speechCharacters, 'a sync in flight').to.equal(10);

      ledger.slowReads = true;
      const reading = meter.days('alice', day, day);
      await new Promise((resolve) => setImmediate(resolve));
      meter.countSpeech('alice', 5);
      const later = meter.sync();
      await new Promise((resolve) => setImmediate(resolve));
      expect(ledger.release, 'no sync starts during a read').to.equal(null);
      ledger.reading!();
      expect((await reading)[0]?.speechCharacters, 'the read, with what is not sent').to.equal(15);
      for (let turns = 0; !ledger.release && turns < 100; turns++) await new Promise((resolve) => setImmediate(resolve));
      ledger.release!();
      await later;
      ledger.slowReads = false;
      ledger.slowSyncs = false;
      expect((await meter.days('alice', day, day))[0]?.speechCharacters).to.equal(15);
    });

    it('counts in memory and sends one batch per sync; what is not sent yet still shows in the user\'s days', async () => {
      const ledger = new CountingLedger();
      const clock = new TestClock();
      const meter = meterOn(ledger, clock);
      meter.countRequest('alice', '2026-11-22', 1);
      meter.countTokens('alice', 'm', { promptTokens: 10, completionTokens: 4, totalTokens: 14 });
      meter.countSpeech('alice', 12);
      meter.countSpeech(undefined, 3);
      expect(ledger.syncs).to.equal(0);
      const expected = [{ date: '2026-11-22', requests: 1, inputTokens: 10, outputTokens: 4, speechCharacters: 12 }];
      expect(await meter.days('alice', '2026-11-22', '2026-11-22')).to.deep.equal(expected);
      await meter.sync();
      expect(ledger.syncs).to.equal(1);
      expect(await ledger.days('alice', '2026-11-22', '2026-11-22')).to.deep.equal(expected);
      expect(await meter.days('alice', '2026-11-22', '2026-11-22'), 'nothing counted twice').to.deep.equal(expected);
      expect((await ledger.days('', '2026-11-22', '2026-11-22'))[0]?.speechCharacters, 'speech of no user').to.equal(3);
    });

    it("reads other instances' tokens: a user's first request waits for one sync, later ones see each sync", async () => {
      const ledger = new CountingLedger();
      const clock = new TestClock();
      const [here, there] = [meterOn(ledger, clock), meterOn(ledger, clock)];
      there.countTokens('alice', 'm', { promptTokens: 100, completionTokens: 50, totalTokens: 150 });
      await there.sync();
      expect(await here.tokensToday('alice')).to.equal(150);
      const syncs = ledger.syncs;
      here.countTokens('alice', 'm', { promptTokens: 1, completionTokens: 1, totalTokens: 2 });
      expect(await here.tokensToday('alice'), 'its own count at once, without a sync').to.equal(152);
      expect(ledger.syncs).to.equal(syncs);
      there.countTokens('alice', 'm', { promptTokens: 0, completionTokens: 8, totalTokens: 8 });
      await there.sync();
      expect(await here.tokensToday('alice'), 'the other instance\'s, not yet read back').to.equal(152);
      await here.sync();
      expect(await here.tokensToday('alice')).to.equal(160);
    });

    it('a new day starts from the store\'s count of that day', async () => {
      const ledger = new CountingLedger();
      const clock = new TestClock(Date.parse('2026-11-22T23:59:59.000Z'));
      const meter = meterOn(ledger, clock);
      meter.countTokens('alice', 'm', { promptTokens: 5, completionTokens: 5, totalTokens: 10 });
      expect(await meter.tokensToday('alice')).to.equal(10);
      clock.ms += 2000;
      expect(await meter.tokensToday('alice')).to.equal(0);
    });

    it('a read waits for the sync in flight only, not for the syncs asked for after it (one after another, as while the database stalls, they kept it waiting for ever)', async () => {
      const ledger = new SlowLedger();
      const meter = meterOn(ledger, new TestClock());
      const day = '2026-11-22';
      meter.countSpeech('alice', 10);
      const first = meter.sync();
      await new Promise((resolve) => setImmediate(resolve));
      const read = meter.days('alice', day, day);
      meter.countSpeech('alice', 5);
      const second = meter.sync(); // asked for during the read: starts after it
      ledger.release!();
      await first;
      let answered = false;
      void read.then(() => (answered = true));
      for (let turns = 0; !answered && turns < 100; turns++) await new Promise((resolve) => setImmediate(resolve));
      expect(answered, 'the read is answered while the second sync waits').to.equal(true);
      expect((await read)[0]?.speechCharacters).to.equal(15);
      for (let turns = 0; !ledger.release && turns < 100; turns++) await new Promise((resolve) => setImmediate(resolve));
      ledger.release!();
      await second;
      expect((await ledger.days('alice', day, day))[0]?.speechCharacters).to.equal(15);
      ledger.slowSyncs = false;
    });

    it('a failed sync keeps its counts for the next one', async () => {
      const ledger = new CountingLedger();
      const meter = meterOn(ledger, new TestClock());
      meter.countRequest('alice', '2026-11-22', 1);
      ledger.failing = true;
      await meter.sync().then(
        () => expect.fail('the sync should fail'),
        () => undefined,
      );
      meter.countRequest('alice', '2026-11-22', 1);
      ledger.failing = false;
      await meter.sync();
      expect((await ledger.days('alice', '2026-11-22', '2026-11-22'))[0]?.requests).to.equal(2);
    });

    it('tokens that use an eighth of a limited user\'s remaining budget are sent at once', async () => {
      const ledger = new CountingLedger();
      const clock = new TestClock();
      const meter = meterOn(ledger, clock, { tokenLimitOf: () => 800 });
      await meter.tokensToday('alice');
      const syncs = ledger.syncs;
      meter.countTokens('alice', 'm', { promptTokens: 50, completionTokens: 40, totalTokens: 90 });
      await meter.sync();
      expect(ledger.syncs - syncs, 'under an eighth: no sync of its own').to.equal(1);
      meter.countTokens('alice', 'm', { promptTokens: 60, completionTokens: 40, totalTokens: 100 });
      await new Promise((resolve) => setImmediate(resolve));
      expect(ledger.syncs - syncs, 'past an eighth of what was left (710 / 8): a sync at once').to.equal(2);
    });

    it('counts only whole counts of tokens: a bad figure from a model adapter is dropped, never added or thrown', async () => {
      const seen: number[] = [];
      const clock = new TestClock();
      const meter = meterOn(new CountingLedger(), clock, { onTokens: (_model, usage) => seen.push(usage.totalTokens) });
      for (const bad of [
        { promptTokens: -1000, completionTokens: -500, totalTokens: -1500 },
        { promptTokens: 12.5, completionTokens: 1, totalTokens: 13.5 },
        { promptTokens: Number.NaN, completionTokens: 1, totalTokens: 1 },
        { promptTokens: 'abc' as unknown as number, completionTokens: 1, totalTokens: 1 },
      ]) {
        expect(() => meter.countTokens('alice', 'm', bad)).to.not.throw();
      }
      meter.countTokens('alice', 'm', { promptTokens: 2, completionTokens: 3, totalTokens: 5 });
      expect(seen).to.deep.equal([5]);
      const day = clock.now().toISOString().slice(0, 10);
      expect((await meter.days('alice', day, day))[0]).to.include({ inputTokens: 2, outputTokens: 3 });
    });

    it('reports every reply\'s tokens with its model (for /metrics)', () => {
      const seen: [string, number][] = [];
      const meter = meterOn(new CountingLedger(), new TestClock(), { onTokens: (model, usage) => seen.push([model, usage.totalTokens]) });
      meter.countTokens('alice', 'gpt-x', { promptTokens: 1, completionTokens: 2, totalTokens: 3 });
      expect(seen).to.deep.equal([['gpt-x', 3]]);
    });
  });

  describe('RequestAllowances', () => {
    it('claims an eighth of what the minute has left, so most requests cost no round trip', async () => {
      const ledger = new CountingLedger();
      const allowances = allowancesOn(ledger, new TestClock());
      for (let i = 0; i < 16; i++) expect((await allowances.take('alice', 1000)).granted).to.equal(true);
      expect(ledger.claims).to.equal(1);
      const { state } = await allowances.take('alice', 1000);
      expect(state).to.deep.include({ limit: 1000, remaining: 983 });
      expect(state.resetMs).to.equal(30_000);
    });

    it('several instances on one ledger never grant more than the limit, in any order', async () => {
      for (const limit of [1, 7, 20, 101]) {
        const ledger = new InMemoryUsageLedger();
        const clock = new TestClock();
        const instances = [allowancesOn(ledger, clock), allowancesOn(ledger, clock), allowancesOn(ledger, clock)];
        const taken = await Promise.all(Array.from({ length: limit * 3 }, (_, i) => instances[(i * 7) % 3]!.take('alice', limit)));
        expect(taken.filter((t) => t.granted).length, `limit ${limit}`).to.be.at.most(limit);
        for (const instance of instances) await instance.releaseIdle();
        for (const instance of instances) await instance.releaseIdle();
        const late = await Promise.all(instances.map((instance) => instance.take('alice', limit)));
        const granted = taken.filter((t) => t.granted).length + late.filter((t) => t.granted).length;
        expect(granted, `limit ${limit}: blocks given back are granted again, never more`).to.equal(limit);
      }
    });

    it('a request given back is free again; a new minute starts afresh', async () => {
      const clock = new TestClock();
      const allowances = allowancesOn(new InMemoryUsageLedger(), clock);
      const first = await allowances.take('alice', 1);
      expect((await allowances.take('alice', 1)).granted).to.equal(false);
      allowances.giveBack('alice', first.window);
      expect((await allowances.take('alice', 1)).granted).to.equal(true);
      clock.ms += 60_000;
      expect((await allowances.take('alice', 1)).granted).to.equal(true);
    });

    it('a minute found used up is refused here for a second without asking the ledger again', async () => {
      const ledger = new CountingLedger();
      const clock = new TestClock();
      const allowances = allowancesOn(ledger, clock);
      await allowances.take('alice', 1);
      await allowances.take('alice', 1);
      const claims = ledger.claims;
      await allowances.take('alice', 1);
      expect(ledger.claims).to.equal(claims);
      clock.ms += 1000;
      await allowances.take('alice', 1);
      expect(ledger.claims).to.equal(claims + 1);
    });
  });

  describe('UsageLimits', () => {
    const gate = (limits: UserLimits, ledger = new InMemoryUsageLedger(), clock = new TestClock()) => {
      const meter = meterOn(ledger, clock);
      return { meter, limits: new UsageLimits(limits, meter, allowancesOn(ledger, clock), clock) };
    };

    it('off: every request is let in and counted, no state to show', async () => {
      const { meter, limits } = gate(limitsOf({}, false));
      const admission = await limits.admit('alice', true);
      expect(admission).to.deep.include({ requests: null, tokens: null, refused: null });
      expect((await meter.days('alice', '2026-11-22', '2026-11-22'))[0]?.requests).to.equal(1);
    });

    it('refuses over the request limit; a refused request counts nothing, one given back neither', async () => {
      const { meter, limits } = gate(limitsOf({ requestsPerMinute: 2 }));
      const first = await limits.admit('alice', false);
      expect(first.requests).to.deep.include({ limit: 2, remaining: 1 });
      await limits.admit('alice', false);
      const third = await limits.admit('alice', false);
      expect(third.refused).to.be.instanceOf(UsageLimitReachedError);
      expect(third.refused!.limit).to.equal('requests');
      expect(third.refused!.retryAfterMs).to.equal(30_000);
      limits.refund(first);
      limits.refund(third);
      expect((await meter.days('alice', '2026-11-22', '2026-11-22'))[0]?.requests).to.equal(1);
      expect((await limits.admit('alice', false)).refused, 'the place given back').to.equal(null);
    });

    it('refuses the model endpoints once the day\'s tokens reach the limit, not speech', async () => {
      const { meter, limits } = gate(limitsOf({ tokensPerDay: 100, requestsPerMinute: 50 }));
      expect((await limits.admit('alice', true)).tokens).to.deep.include({ limit: 100, remaining: 100 });
      meter.countTokens('alice', 'm', { promptTokens: 60, completionTokens: 40, totalTokens: 100 });
      const refused = await limits.admit('alice', true);
      expect(refused.refused?.limit).to.equal('tokens');
      expect(refused.refused?.retryAfterMs).to.equal(14 * 3_600_000 - 30_000);
      expect(refused.requests, 'the request limit shown, not taken').to.deep.include({ remaining: 49 });
      expect((await limits.admit('alice', false)).refused, 'speech has no tokens').to.equal(null);
    });
  });

  describe('GetUsage', () => {
    it('every day of the range, zeros included, and totals; today by default; ranges checked', async () => {
      const clock = new TestClock();
      const meter = meterOn(new InMemoryUsageLedger(), clock);
      meter.countRequest('alice', '2026-11-20', 1);
      meter.countSpeech('alice', 9);
      const getUsage = new GetUsage(meter, clock);
      const usage = await getUsage.execute({ userId: 'alice', from: '2026-11-19', to: '2026-11-22' });
      expect(usage.days.map((day) => [day.date, day.requests, day.speechCharacters])).to.deep.equal([
        ['2026-11-19', 0, 0],
        ['2026-11-20', 1, 0],
        ['2026-11-21', 0, 0],
        ['2026-11-22', 0, 9],
      ]);
      expect(usage.totals).to.deep.equal({ requests: 1, inputTokens: 0, outputTokens: 0, speechCharacters: 9 });
      expect((await getUsage.execute({ userId: 'alice' })).days.map((day) => day.date)).to.deep.equal(['2026-11-22']);
      for (const input of [{ from: '2026-11-23', to: '2026-11-22' }, { from: '2025-11-20', to: '2026-11-22' }]) {
        await getUsage.execute({ userId: 'alice', ...input }).then(
          () => expect.fail(`${JSON.stringify(input)} should be refused`),
          (error: unknown) => expect(error).to.be.instanceOf(FieldInvalidError),
        );
      }
    });
  });

  describe('estimated usage', () => {
    it('the offline model counts a stopped reply in words, as its finished ones; another model, four characters a token', () => {
      const request = { persona: new JsonFilePersonaSource().persona(), history: [{ role: 'user' as const, text: 'earlier words here' }], text: 'hello there' };
      const offline = new OfflineChatModel();
      expect(estimatedUsage(offline, request, 'two words')).to.deep.equal(offline.estimateUsage(request, 'two words'));
      const other = { complete: () => Promise.reject(new Error('unused')), stream: async function* () {} };
      const usage = estimatedUsage(other, request, 'twelve chars');
      expect(usage.completionTokens).to.equal(3);
      expect(usage.promptTokens).to.be.greaterThan(estimateTokens('earlier words herehello there'));
      expect(usage.totalTokens).to.equal(usage.promptTokens + 3);
    });
  });
});

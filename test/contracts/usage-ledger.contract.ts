import { expect } from 'chai';
import type { UsageDelta, UsageLedger } from '../../src/application/ports/usage-ledger.js';
import { NO_USAGE } from '../../src/domain/usage.js';
import { uid } from '../support/ids.js';

export type MakeLedger = () => Promise<{ ledger: UsageLedger; close(): Promise<void> }>;

const DAY = '2026-11-22';
const delta = (userId: string, counts: Partial<UsageDelta> = {}): UsageDelta => ({ ...NO_USAGE, userId, day: DAY, ...counts });
/** A minute of its own per test, far from any other's, and ahead (minutes long past may be cleaned away). */
const aMinute = () => (Math.floor(Date.now() / 60_000) + 1 + Math.floor(Math.random() * 1e6)) * 60_000;

/** What every UsageLedger must do, whichever store keeps it (capability: none needed). */
export function usageLedgerContract(make: MakeLedger): void {
  describe('UsageLedger contract', () => {
    let subject: Awaited<ReturnType<MakeLedger>>;
    beforeEach(async () => {
      subject = await make();
    });
    afterEach(() => subject.close());
    const ledger = () => subject.ledger;

    it('adds deltas per user and day, and reads the day back for the users asked about', async () => {
      const [alice, bob, carol] = [uid('alice'), uid('bob'), uid('carol')];
      await ledger().sync([delta(alice, { requests: 1, inputTokens: 10, outputTokens: 5 }), delta(bob, { speechCharacters: 12 })], DAY, []);
      const totals = await ledger().sync([delta(alice, { requests: 1, outputTokens: 7 }), delta(alice, { day: '2026-11-23', requests: 1 })], DAY, [alice, bob, carol]);
      expect(totals.get(alice)).to.deep.equal({ requests: 2, inputTokens: 10, outputTokens: 12, speechCharacters: 0 });
      expect(totals.get(bob)).to.deep.equal({ requests: 0, inputTokens: 0, outputTokens: 0, speechCharacters: 12 });
      expect(totals.has(carol), 'a user with no usage that day').to.equal(false);
    });

    it('answers only for the users asked about, and nothing with nothing to add', async () => {
      const [alice, bob] = [uid('alice'), uid('bob')];
      expect((await ledger().sync([delta(alice, { requests: 3 }), delta(bob, { requests: 1 })], DAY, [bob])).size).to.equal(1);
      expect((await ledger().sync([], DAY, [])).size).to.equal(0);
      expect((await ledger().sync([], DAY, [alice])).get(alice)?.requests).to.equal(3);
    });

    it('takes negative deltas (a request given back)', async () => {
      const alice = uid('alice');
      await ledger().sync([delta(alice, { requests: 2 })], DAY, []);
      expect((await ledger().sync([delta(alice, { requests: -1 })], DAY, [alice])).get(alice)?.requests).to.equal(1);
    });

    it('lists a user\'s days in a range, oldest first, only days with usage', async () => {
      const alice = uid('alice');
      await ledger().sync(
        [delta(alice, { day: '2026-11-25', requests: 1 }), delta(alice, { day: '2026-11-20', inputTokens: 4 }), delta(alice, { day: '2026-11-30', requests: 9 }), delta(uid('bob'), { day: '2026-11-21', requests: 1 })],
        DAY,
        [],
      );
      expect(await ledger().days(alice, '2026-11-20', '2026-11-29')).to.deep.equal([
        { date: '2026-11-20', requests: 0, inputTokens: 4, outputTokens: 0, speechCharacters: 0 },
        { date: '2026-11-25', requests: 1, inputTokens: 0, outputTokens: 0, speechCharacters: 0 },
      ]);
      expect(await ledger().days(uid('nobody'), '2026-11-20', '2026-11-29')).to.deep.equal([]);
    });

    it('keeps the user without an id (speech of no user) apart', async () => {
      const alice = uid('alice');
      await ledger().sync([delta('', { speechCharacters: 5 }), delta(alice, { speechCharacters: 1 })], DAY, []);
      expect((await ledger().sync([], DAY, [alice])).get(alice)?.speechCharacters).to.equal(1);
    });

    it('grants a minute\'s requests in blocks, never more than the limit in all', async () => {
      const alice = uid('alice');
      const minute = aMinute();
      expect(await ledger().claimRequests(alice, minute, 4, 10)).to.deep.equal({ granted: 4, total: 4 });
      expect(await ledger().claimRequests(alice, minute, 4, 10)).to.deep.equal({ granted: 4, total: 8 });
      expect(await ledger().claimRequests(alice, minute, 4, 10)).to.deep.equal({ granted: 2, total: 10 });
      expect(await ledger().claimRequests(alice, minute, 1, 10)).to.deep.equal({ granted: 0, total: 10 });
      expect((await ledger().claimRequests(alice, minute + 60_000, 3, 10)).granted, 'the next minute').to.equal(3);
      expect((await ledger().claimRequests(uid('bob'), minute, 3, 10)).granted, 'another user').to.equal(3);
    });

    it('concurrent claims together stay within the limit', async () => {
      const alice = uid('alice');
      const minute = aMinute();
      const claims = await Promise.all(Array.from({ length: 40 }, () => ledger().claimRequests(alice, minute, 3, 50)));
      expect(claims.reduce((sum, claim) => sum + claim.granted, 0)).to.equal(50);
      expect(Math.max(...claims.map((claim) => claim.total))).to.equal(50);
    });

    it('releases give requests back to later claims', async () => {
      const [alice, bob] = [uid('alice'), uid('bob')];
      const minute = aMinute();
      await ledger().claimRequests(alice, minute, 5, 5);
      await ledger().releaseRequests([{ userId: alice, window: minute, count: 2 }, { userId: bob, window: minute, count: 1 }]);
      expect(await ledger().claimRequests(alice, minute, 5, 5)).to.deep.equal({ granted: 2, total: 5 });
      expect((await ledger().claimRequests(bob, minute, 5, 5)).granted, 'a release of nothing claimed takes nothing').to.equal(5);
      await ledger().releaseRequests([]);
    });

    it('forgets a user: every day and minute of theirs, no one else\'s', async () => {
      const [alice, bob] = [uid('alice'), uid('bob')];
      const minute = aMinute();
      await ledger().sync([delta(alice, { requests: 1 }), delta(alice, { day: '2026-11-23', requests: 2 }), delta(bob, { requests: 5 })], DAY, []);
      await ledger().claimRequests(alice, minute, 3, 3);
      expect(await ledger().forgetUser(alice)).to.equal(2);
      expect(await ledger().days(alice, '2026-01-01', '2026-12-31')).to.deep.equal([]);
      expect((await ledger().claimRequests(alice, minute, 3, 3)).granted, 'its minute is gone too').to.equal(3);
      expect((await ledger().sync([], DAY, [bob])).get(bob)?.requests).to.equal(5);
      expect(await ledger().forgetUser(uid('nobody'))).to.equal(0);
    });

    it('a lowered limit grants nothing more while the minute is past it', async () => {
      const alice = uid('alice');
      const minute = aMinute();
      await ledger().claimRequests(alice, minute, 8, 10);
      expect(await ledger().claimRequests(alice, minute, 2, 5)).to.deep.equal({ granted: 0, total: 8 });
    });
  });
}

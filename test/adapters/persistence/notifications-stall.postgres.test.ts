import { expect } from 'chai';
import { PostgresReplyNotifications } from '../../../src/adapters/persistence/postgres/postgres-reply-notifications.js';
import { createTestDatabase, requirePostgres, throughStallingProxy } from '../../support/postgres.js';
import type { StallingProxy } from '../../support/tcp-fixtures.js';

/**
 * The LISTEN connection behind a network that goes silent: nothing is raised by the socket, so a
 * stop sent on it waited for ever (a stop request to that instance never answered) and no news
 * was heard again. A statement without an answer within the bound is now the connection lost.
 */
describe('reply news: a LISTEN connection that goes silent', function () {
  this.timeout(30_000);
  let proxy: StallingProxy | undefined;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let notifications: PostgresReplyNotifications | undefined;
  const states: string[] = [];

  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
    let url: string;
    ({ proxy, url } = await throughStallingProxy(database.url));
    notifications = new PostgresReplyNotifications({ url, timeoutMs: 500, onState: (state) => states.push(state) });
    await notifications.start();
  });
  after(async () => {
    proxy?.resume();
    await notifications?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('a stop sent on it fails within the bound instead of waiting for ever; the connection is re-made once the network is back', async () => {
    const heard: string[] = [];
    notifications!.onStopRequest((replyId) => heard.push(replyId));
    await notifications!.requestStop('before-the-stall');
    proxy!.stall();
    const started = Date.now();
    const outcome = await notifications!.requestStop('during-the-stall').then(
      () => 'sent',
      (error: unknown) => (error as Error).message,
    );
    expect(outcome).to.equal('Query read timeout');
    expect(Date.now() - started).to.be.below(5000);
    expect(states).to.deep.equal(['listening', 'lost']);
    proxy!.resume();
    for (let i = 0; i < 100 && states.at(-1) !== 'listening'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(states.at(-1)).to.equal('listening');
    await notifications!.requestStop('after-the-stall');
    for (let i = 0; i < 50 && !heard.includes('after-the-stall'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard).to.include.members(['before-the-stall', 'after-the-stall']);
  });
});

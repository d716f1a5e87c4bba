import { expect } from 'chai';
import { uid } from '../support/ids.js';
import { createTestDatabase, requirePostgres, throughStallingProxy } from '../support/postgres.js';
import { killAllServiceProcesses, launchService } from '../support/service-process.js';
import type { StallingProxy } from '../support/tcp-fixtures.js';

/**
 * The process (the real entry point) whose database stops answering mid-run, as behind a stalled
 * network: a SIGTERM must still end it. Closing the pool and the LISTEN connection waited on the
 * silent server for ever.
 */
describe('shutdown with a database that stopped answering', function () {
  this.timeout(60_000);
  let proxy: StallingProxy | undefined;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let url: string;

  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
    ({ proxy, url } = await throughStallingProxy(database.url));
  });
  after(async () => {
    killAllServiceProcesses();
    await proxy?.close();
    await database?.drop();
  });

  it('exits (code 1, saying what it could not close) once SHUTDOWN_TIMEOUT_MS and the closing grace have passed', async () => {
    const SHUTDOWN_MS = 500;
    const service = await launchService({ DATABASE_URL: url, DATABASE_TIMEOUT_MS: '1000', SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_MS), LIMIT_REQUESTS_PER_MINUTE: '50' });
    const chat = await fetch(`${service.url}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user_id: uid('u'), text: 'hello' }) });
    expect(chat.status).to.equal(200);
    proxy!.stall();
    const stoppedAt = Date.now();
    const code = await service.stop();
    const took = Date.now() - stoppedAt;
    expect(code).to.equal(1);
    expect(took, `exited after ${took} ms`).to.be.below(SHUTDOWN_MS + 5000 + 5000);
    expect(service.output().stdout).to.match(/did not close within 5500 ms \(SHUTDOWN_TIMEOUT_MS \+ 5000\); exiting all the same/);
  });
});

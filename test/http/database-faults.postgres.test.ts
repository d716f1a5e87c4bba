import { expect } from 'chai';
import { uid } from '../support/ids.js';
import { startTestService, type TestService } from '../support/service.js';
import { requireThrowawayPostgres, startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwaway-postgres.js';

describe('PostgreSQL going away and coming back', function () {
  this.timeout(90_000);
  let database: ThrowawayPostgres | undefined;
  let service: TestService | undefined;

  before(async function () {
    requireThrowawayPostgres(this);
    database = await startThrowawayPostgres();
    service = await startTestService({ DATABASE_URL: database.url, DATABASE_TIMEOUT_MS: '1000', READINESS_TIMEOUT_MS: '2000' });
  });
  after(async () => {
    await service?.stop();
    await database?.destroy();
  });

  it('answers 503 while the database is down, never hangs, and recovers by itself', async () => {
    const ids = { user_id: uid('user'), conversation_id: uid('conv') };
    const save = (text: string) => service!.post('/api/chat/saveMessage', { ...ids, role: 'user', text });
    expect((await save('before')).status).to.equal(201);
    expect((await service!.call('GET', '/v1/health/ready')).status).to.equal(200);

    await database!.stop();
    for (const attempt of [save('during'), service!.post('/api/chat/loadMessages', ids), service!.post('/v1/chat', { ...ids, text: 'hi' })]) {
      const started = Date.now();
      const res = await attempt;
      expect(res.status).to.equal(503);
      expect(res.json).to.deep.equal({ detail: 'the database is unavailable; try again shortly', status: 'error' });
      expect(Date.now() - started).to.be.below(10_000);
    }
    const ready = await service!.call('GET', '/v1/health/ready');
    expect(ready.status).to.equal(503);
    expect(ready.json).to.include({ status: 'error', detail: 'unavailable: database' });
    expect((await service!.call('GET', '/v1/health')).status).to.equal(200);

    await database!.start();
    let recovered = false;
    for (let i = 0; i < 40 && !recovered; i++) {
      recovered = (await save('after')).status === 201;
      if (!recovered) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(recovered, 'the service recovered by itself').to.equal(true);
    expect((await service!.call('GET', '/v1/health/ready')).status).to.equal(200);
    const loaded = await service!.post('/api/chat/loadMessages', ids);
    expect(loaded.json.messages.map((m: { text: string }) => m.text)).to.deep.equal(['before', 'after']);
  });
});

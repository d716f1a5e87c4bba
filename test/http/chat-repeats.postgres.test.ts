import { expect } from 'chai';
import { uid } from '../support/ids.js';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * A client that retries a chat request naming no conversation, its first try still in flight:
 * identical requests with one message_id, at once. Each must answer the one reply, and only one
 * conversation is made. On PostgreSQL the requests race in separate connections.
 */
describe('POST /v1/chat repeated at once with one message_id and no conversation (PostgreSQL store)', function () {
  this.timeout(30_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let service: TestService | undefined;
  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
    service = await startTestService({ DATABASE_URL: database.url, OFFLINE_STREAM_DELAY_MS: '0' });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('every request answers the one reply (no 409), and only one conversation is made, none left empty', async () => {
    const userId = uid('u');
    const trials = 20;
    for (let trial = 0; trial < trials; trial++) {
      const body = { text: 'I feel tired today', user_id: userId, message_id: uid(`m${trial}`) };
      const answers = await Promise.all(Array.from({ length: 6 }, () => service!.post('/v1/chat', body)));
      expect(answers.map((a) => a.status), JSON.stringify(answers.map((a) => a.json))).to.deep.equal(Array(6).fill(200));
      expect(new Set(answers.map((a) => a.json.message_id)).size).to.equal(1);
      expect(new Set(answers.map((a) => a.json.conversation_id)).size).to.equal(1);
    }
    const { json } = await service!.call('GET', `/api/chat/conversations?user_id=${encodeURIComponent(userId)}&limit=100`);
    expect(json.conversations).to.have.length(trials);
    expect(json.conversations.filter((c: { message_count: number }) => c.message_count !== 2)).to.deep.equal([]);
  });
});

import { expect } from 'chai';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { uid } from '../support/ids.js';
import { startTestService, type TestService } from '../support/service.js';
import { storageEndpointSuite } from './storage-endpoints.suite.js';
import { unstorableTextSuite } from './unstorable-text.suite.js';

describe('chat storage endpoints (PostgreSQL store)', function () {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
  });
  after(() => database?.drop());

  const start = () => startTestService({ DATABASE_URL: database!.url });

  describe('the shared suite', () => storageEndpointSuite(start));
  describe('text no store can keep', () => unstorableTextSuite(start));

  describe('under concurrency', () => {
    let service: TestService;
    before(async () => {
      service = await start();
    });
    after(() => service?.stop());

    it('deletes a long chain whole, or a long subtree, within one statement bound (it walked up from every deleted message: 503 after DATABASE_TIMEOUT_MS)', async function () {
      this.timeout(60_000);
      const user = uid('user');
      const chain = async (conversationId: string, length: number) => {
        for (let start = 0; start < length; start += 1000) {
          const messages = Array.from({ length: Math.min(1000, length - start) }, (_, i) => ({ role: 'user', text: `m${start + i}` }));
          const res = await service.post('/api/chat/saveSession', { user_id: user, conversation_id: conversationId, messages });
          expect(res.status, res.text).to.equal(201);
        }
        return (await service.post('/api/chat/loadMessages', { user_id: user, conversation_id: conversationId, limit: 1 })).json.messages[0].message_id as string;
      };
      const whole = uid('whole');
      await chain(whole, 4000);
      const all = await service.call('DELETE', '/api/chat/deleteMessages', { body: { user_id: user, conversation_id: whole, all: true } });
      expect([all.status, all.json.deleted], all.text).to.deep.equal([200, 4000]);

      const subtree = uid('subtree');
      const first = await chain(subtree, 4000);
      const below = await service.call('DELETE', '/api/chat/deleteMessages', { body: { user_id: user, conversation_id: subtree, message_ids: [first], descendants: true } });
      expect([below.status, below.json.deleted], below.text).to.deep.equal([200, 4000]);
      const { json } = await service.call('GET', `/api/chat/conversations/${subtree}?user_id=${user}`);
      expect([json.conversation.message_count, json.conversation.head_id]).to.deep.equal([0, null]);
    });

    it('200 parallel saves on one conversation lose nothing, duplicate nothing, keep one order', async () => {
      const ids = { user_id: uid('user'), conversation_id: uid('conv') };
      const saves = Array.from({ length: 200 }, (_, i) =>
        service.post('/api/chat/saveMessage', { ...ids, message_id: `m-${i}`, role: 'user', text: `message ${i}` }),
      );
      const statuses = (await Promise.all(saves)).map((r) => r.status);
      expect(statuses.every((s) => s === 201), String(statuses)).to.equal(true);
      // Repeating them all is idempotent.
      const again = await Promise.all(
        Array.from({ length: 200 }, (_, i) => service.post('/api/chat/saveMessage', { ...ids, message_id: `m-${i}`, role: 'user', text: `message ${i}` })),
      );
      expect(again.every((r) => r.status === 200)).to.equal(true);
      const read = async (limit: number) => {
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const res = await service.post('/api/chat/loadMessages', { ...ids, limit, ...(cursor ? { cursor } : {}) });
          seen.push(...res.json.messages.map((m: { message_id: string }) => m.message_id));
          cursor = res.json.next_cursor;
        } while (cursor);
        return seen;
      };
      const all = await read(500);
      expect(all).to.have.length(200);
      expect(new Set(all).size).to.equal(200);
      expect(await read(17)).to.deep.equal(all);
    });

    it('two users racing to start one conversation: exactly one owns it', async () => {
      const conversationId = uid('conv');
      const results = await Promise.all(
        ['alice', 'bob', 'carol', 'dave'].map((name) =>
          service.post('/api/chat/saveMessage', { user_id: `${name}-${conversationId}`, conversation_id: conversationId, role: 'user', text: name }),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).to.deep.equal([201, 404, 404, 404]);
    });

    it('parallel identical chat requests store one exchange', async () => {
      const body = { text: 'same', user_id: uid('user'), conversation_id: uid('conv'), message_id: uid('msg') };
      const results = await Promise.all(Array.from({ length: 5 }, () => service.post('/v1/chat', body)));
      expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200]);
      const loaded = await service.post('/api/chat/loadMessages', { user_id: body.user_id, conversation_id: body.conversation_id });
      expect(loaded.json.messages.map((m: { role: string }) => m.role)).to.deep.equal(['user', 'assistant']);
      expect(new Set(results.map((r) => r.json.message_id)).size).to.equal(1);
    });
  });

  it('data written before a restart of the service is all there after it', async () => {
    const ids = { user_id: uid('user'), conversation_id: uid('conv') };
    const first = await start();
    const chat = await first.post('/v1/chat', { ...ids, text: 'remember me' });
    await first.post('/api/chat/saveSession', { ...ids, session_id: uid('s'), title: 'Kept', messages: [{ role: 'system', text: 'note' }] });
    await first.stop();
    const second = await start();
    try {
      const loaded = await second.post('/api/chat/loadMessages', ids);
      expect(loaded.json.messages.map((m: { text: string }) => m.text)).to.deep.equal(['remember me', chat.json.response, 'note']);
      const replay = await second.post('/v1/chat', { ...ids, text: 'remember me', message_id: chat.json.user_message_id });
      expect(replay.json.message_id).to.equal(chat.json.message_id);
      const list = await second.call('GET', `/api/chat/conversations?user_id=${ids.user_id}`);
      expect(list.json.conversations[0]).to.include({ conversation_id: ids.conversation_id, title: 'Kept', message_count: 3 });
    } finally {
      await second.stop();
    }
  });
});

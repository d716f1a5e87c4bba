import { expect } from 'chai';
import { uid } from '../support/ids.js';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { startTestService, type TestService } from '../support/service.js';
import { withCredentials } from '../support/test-credentials.js';

/**
 * Writes that race on one message_id in separate connections. A client that retries a chat request
 * naming no conversation, its first try still in flight: identical requests at once, each must
 * answer the one reply, and only one conversation is made. Saves of one id into several
 * conversations: one is stored, the others are told the id is taken.
 */
describe('writes racing on one message_id or session_id (PostgreSQL store)', function () {
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

  it('one new message_id saved at once into several conversations (in a transaction each): one 201, the others 409, never a 500', async () => {
    const userId = uid('u');
    for (let trial = 0; trial < 10; trial++) {
      const messageId = uid(`m${trial}`);
      const answers = await Promise.all(
        Array.from({ length: 4 }, (_, n) =>
          service!.post('/api/chat/saveSession', { user_id: userId, conversation_id: uid(`c${trial}-${n}`), messages: [{ role: 'user', text: 'the same', message_id: messageId }] }),
        ),
      );
      expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.json))).to.deep.equal([201, 409, 409, 409]);
    }
  });

  it('a cut-short reply: repeats of its question and regenerates of it at once each answer (200, or 409 while another is written), never a 500', async () => {
    const slow = await startTestService({ DATABASE_URL: database!.url, OFFLINE_STREAM_DELAY_MS: '50' });
    try {
      const text = 'I feel tired today and I cannot sleep at night';
      for (let trial = 0; trial < 5; trial++) {
        const ids = { user_id: uid('u'), conversation_id: uid('c') };
        const question = uid('q');
        const body = { ...ids, text, message_id: question };
        const headers = await withCredentials(`${slow.url}/v1/chat/stream`, { 'content-type': 'application/json' }, body);
        const started = await fetch(`${slow.url}/v1/chat/stream`, { method: 'POST', headers, body: JSON.stringify(body) });
        const reader = started.body!.getReader();
        const replyId = JSON.parse(/data: (.*)/.exec(new TextDecoder().decode((await reader.read()).value))![1]!).message_id;
        await slow.post(`/v1/chat/stream/${replyId}/stop`, { user_id: ids.user_id });
        while (!(await reader.read()).done);
        const answers = await Promise.all(Array.from({ length: 8 }, (_, n) => slow.post('/v1/chat', n % 2 ? { ...ids, regenerate: question } : { ...ids, text, message_id: question })));
        expect(answers.filter((a) => a.status !== 200 && a.status !== 409).map((a) => a.json)).to.deep.equal([]);
      }
    } finally {
      await slow.stop();
    }
  });

  it('two users importing one free conversation id at once: each keeps a conversation of their own (the later under a derived id), as reported', async () => {
    for (let trial = 0; trial < 10; trial++) {
      const conversationId = uid('shared');
      const users = [uid('p'), uid('q')];
      const line = (user: string, n: number) =>
        JSON.stringify({
          conversation: { conversation_id: conversationId, user_id: user, title: 'Imported', created_at: '2026-11-28T10:00:00.000Z' },
          messages: [{ message_id: `${conversationId}-${n}`, conversation_id: conversationId, user_id: user, role: 'user', text: `hi from ${user}`, created_at: '2026-11-28T10:00:00.000Z', metadata: {}, parent_id: null }],
        }) + '\n';
      const answers = await Promise.all(users.map((user, n) => service!.call('POST', `/api/users/${user}/import`, { raw: line(user, n), headers: { 'content-type': 'application/x-ndjson' } })));
      for (const [n, user] of users.entries()) {
        expect(answers[n]!.json.conversations, JSON.stringify(answers[n]!.json)).to.deep.equal({ created: 1, skipped: 0 });
        const { json } = await service!.call('GET', `/api/chat/conversations?user_id=${user}`);
        expect(json.conversations, `${user}'s conversations`).to.have.length(1);
      }
    }
  });

  it('one file imported four times at once: its conversations are counted created once, skipped three times', async () => {
    for (let trial = 0; trial < 3; trial++) {
      const user = uid('importer');
      const file = JSON.stringify(
        [0, 1, 2].map((c) => ({
          id: `${user}-conv${c}`,
          title: `T${c}`,
          create_time: 1790000000,
          update_time: 1790000100,
          current_node: `${user}-${c}-n1`,
          mapping: {
            [`${user}-${c}-n0`]: { id: `${user}-${c}-n0`, parent: null, children: [`${user}-${c}-n1`], message: { id: `${user}-${c}-n0`, author: { role: 'user' }, create_time: 1790000000, content: { content_type: 'text', parts: [`q${c}`] } } },
            [`${user}-${c}-n1`]: { id: `${user}-${c}-n1`, parent: `${user}-${c}-n0`, children: [], message: { id: `${user}-${c}-n1`, author: { role: 'assistant' }, create_time: 1790000001, content: { content_type: 'text', parts: [`a${c}`] } } },
          },
        })),
      );
      const answers = await Promise.all(Array.from({ length: 4 }, () => service!.call('POST', `/api/users/${user}/import`, { raw: file, headers: { 'content-type': 'application/json' } })));
      const sum = (kind: 'conversations' | 'messages', count: 'created' | 'skipped') => answers.reduce((total, a) => total + a.json[kind][count], 0);
      expect([sum('conversations', 'created'), sum('conversations', 'skipped')]).to.deep.equal([3, 9]);
      expect([sum('messages', 'created'), sum('messages', 'skipped')]).to.deep.equal([6, 18]);
    }
  });

  it('deletes of neighbouring messages at once keep the tree whole: each child follows the nearest surviving ancestor', async () => {
    for (let trial = 0; trial < 10; trial++) {
      const ids = { user_id: uid('u'), conversation_id: uid('c') };
      const chain = Array.from({ length: 6 }, (_, k) => `m${k}-${ids.conversation_id}`);
      for (const [k, messageId] of chain.entries()) await service!.post('/api/chat/saveMessage', { ...ids, role: k % 2 ? 'assistant' : 'user', text: `m${k}`, message_id: messageId });
      const answers = await Promise.all([1, 2, 3, 4].map((k) => service!.call('DELETE', '/api/chat/deleteMessages', { body: { ...ids, message_ids: [chain[k]] } })));
      expect(answers.map((a) => a.json.deleted)).to.deep.equal([1, 1, 1, 1]);
      const { json } = await service!.post('/api/chat/loadMessages', ids);
      expect(json.messages.map((m: { message_id: string; parent_id: string | null }) => [m.message_id, m.parent_id])).to.deep.equal([
        [chain[0], null],
        [chain[5], chain[0]],
      ]);
    }
  });

  it('a message saved under a parent that is deleted at the same moment never keeps a deleted parent (it follows the parent\'s own, or is refused)', async () => {
    const dangling: string[] = [];
    for (let trial = 0; trial < 20; trial++) {
      const ids = { user_id: uid('u'), conversation_id: uid('c') };
      const [root, doomed, child] = ['root', 'doomed', 'child'].map((name) => `${name}-${ids.conversation_id}`);
      await service!.post('/api/chat/saveMessage', { ...ids, role: 'user', text: 'root', message_id: root });
      await service!.post('/api/chat/saveMessage', { ...ids, role: 'assistant', text: 'doomed', message_id: doomed });
      const [deleted, saved] = await Promise.all([
        service!.call('DELETE', '/api/chat/deleteMessages', { body: { ...ids, message_ids: [doomed] } }),
        service!.post('/api/chat/saveMessage', { ...ids, role: 'user', text: 'child', message_id: child, parent_id: doomed }),
      ]);
      expect(deleted.json.deleted).to.equal(1);
      expect([201, 400], JSON.stringify(saved.json)).to.include(saved.status);
      const { json } = await service!.post('/api/chat/loadMessages', { ...ids, branch: 'all' });
      const stored = new Set(json.messages.map((m: { message_id: string }) => m.message_id));
      for (const m of json.messages as { message_id: string; parent_id: string | null }[]) if (m.parent_id !== null && !stored.has(m.parent_id)) dangling.push(m.message_id);
    }
    expect(dangling).to.deep.equal([]);
  });

  it('one new session_id saved at once into several conversations: one 201, the others 409, and the stored session is the winner\'s whole', async () => {
    const userId = uid('u');
    for (let trial = 0; trial < 10; trial++) {
      const sessionId = uid(`s${trial}`);
      const bodies = Array.from({ length: 6 }, (_, n) => ({ user_id: userId, conversation_id: uid(`c${trial}-${n}`), session_id: sessionId, title: `title ${n}` }));
      const answers = await Promise.all(bodies.map((body) => service!.post('/api/chat/saveSession', body)));
      expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.json))).to.deep.equal([201, 409, 409, 409, 409, 409]);
      const winner = bodies[answers.findIndex((a) => a.status === 201)]!;
      // Saving again with no fields reads the session back (there is no other way to).
      const { json } = await service!.post('/api/chat/saveSession', { user_id: userId, conversation_id: winner.conversation_id, session_id: sessionId });
      expect(json.session).to.include({ conversation_id: winner.conversation_id, title: winner.title });
    }
  });

  it('one new session_id saved at once by the same conversation: one 201 (created), the others 200 (updated), no field lost', async () => {
    const userId = uid('u');
    const conversationId = uid('c');
    for (let trial = 0; trial < 10; trial++) {
      const sessionId = uid(`s${trial}`);
      const bodies = [{ title: 'named' }, { metadata: { n: 1 } }, { started_at: '2026-11-22T10:00:00.000Z' }].map((fields) => ({ user_id: userId, conversation_id: conversationId, session_id: sessionId, ...fields }));
      const answers = await Promise.all(bodies.map((body) => service!.post('/api/chat/saveSession', body)));
      expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.json))).to.deep.equal([200, 200, 201]);
      const { json } = await service!.post('/api/chat/saveSession', { user_id: userId, conversation_id: conversationId, session_id: sessionId });
      expect(json.session).to.deep.include({ title: 'named', metadata: { n: 1 }, started_at: '2026-11-22T10:00:00.000Z' });
    }
  });
});

import { expect } from 'chai';
import { uid } from '../support/ids.js';
import type { TestService } from '../support/service.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The chat-storage endpoints, written once and run against every store. */
export function storageEndpointSuite(start: () => Promise<TestService>): void {
  let service: TestService;
  before(async () => {
    service = await start();
  });
  after(() => service?.stop());

  const save = (body: Record<string, unknown>) => service.post('/api/chat/saveMessage', body);
  // Every message in the conversation order (created_at, then insertion): these tests write out of
  // order on purpose. Branch listings are covered by conversation-tree.test.ts.
  const load = (body: Record<string, unknown>) => service.post('/api/chat/loadMessages', { branch: 'all', ...body });
  const texts = (res: { json: { messages: { text: string }[] } }) => res.json.messages.map((m) => m.text);
  const aConversation = () => ({ user_id: uid('user'), conversation_id: uid('conv') });

  describe('POST /api/chat/saveMessage', () => {
    it('creates the user and conversation and returns 201 with the message', async () => {
      const ids = aConversation();
      const res = await save({ ...ids, role: 'user', text: 'hello', metadata: { lang: 'en' } });
      expect(res.status).to.equal(201);
      expect(res.json.status).to.equal('ok');
      const message = res.json.message;
      expect(message).to.include({ ...ids, role: 'user', text: 'hello' });
      expect(message.metadata).to.deep.equal({ lang: 'en' });
      expect(message.created_at).to.match(ISO_MS);
      expect(message.message_id).to.be.a('string');
      expect(texts(await load(ids))).to.deep.equal(['hello']);
    });

    it('keeps a client message_id and created_at, normalised to UTC with milliseconds', async () => {
      const ids = aConversation();
      const messageId = uid('msg');
      const res = await save({ ...ids, message_id: messageId, role: 'system', text: 'be nice', created_at: '2026-11-22T11:15:30+01:00' });
      expect(res.json.message).to.include({ message_id: messageId, created_at: '2026-11-22T10:15:30.000Z', role: 'system' });
    });

    it('the same message again gives 200 with the stored message and no duplicate', async () => {
      const ids = aConversation();
      const body = { ...ids, message_id: uid('msg'), role: 'user', text: 'once', metadata: { a: 1 } };
      const first = await save(body);
      const again = await save(body);
      expect(again.status).to.equal(200);
      expect(again.json.message).to.deep.equal(first.json.message);
      const withoutOptional = await save({ ...ids, message_id: body.message_id, role: 'user', text: 'once' });
      expect(withoutOptional.status).to.equal(200);
      expect(texts(await load(ids))).to.deep.equal(['once']);
    });

    for (const [field, change] of [
      ['text', { text: 'other' }],
      ['role', { role: 'assistant' }],
      ['metadata', { metadata: { a: 2 } }],
    ] as const) {
      it(`the same message_id with a different ${field} gives 409`, async () => {
        const ids = aConversation();
        const body = { ...ids, message_id: uid('msg'), role: 'user', text: 'once', metadata: { a: 1 } };
        await save(body);
        const res = await save({ ...body, ...change });
        expect(res.status).to.equal(409);
        expect(res.json.status).to.equal('error');
        expect(res.json.detail).to.include(field);
      });
    }

    it('one message sent ten times at once is stored once: one 201, nine 200 with the same message', async () => {
      const ids = aConversation();
      const body = { ...ids, message_id: uid('msg'), role: 'user', text: 'sent ten times at once', metadata: { try: 1 } };
      const results = await Promise.all(Array.from({ length: 10 }, () => save(body)));
      expect(results.map((r) => r.status).sort()).to.deep.equal([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
      expect(new Set(results.map((r) => JSON.stringify(r.json.message))).size).to.equal(1);
      const loaded = await load(ids);
      expect(loaded.json.messages.map((m: { message_id: string }) => m.message_id)).to.deep.equal([body.message_id]);
    });

    it('saves and chat turns at once on one conversation: none is older than the message it follows, and each answer tells the time stored', async () => {
      // Each request reads the time before the conversation is free; one that waited follows messages written meanwhile.
      const ids = aConversation();
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, n) => (n % 2 ? service.post('/v1/chat', { ...ids, text: `question ${n}` }) : save({ ...ids, role: 'user', text: `saved ${n}` }))),
      );
      expect(answers.filter((a) => a.status !== 200 && a.status !== 201).map((a) => a.text)).to.deep.equal([]);
      const { json } = await load({ ...ids, limit: 500 });
      expect(json.messages).to.have.length(60);
      const stored = new Map<string, string>(json.messages.map((m: { message_id: string; created_at: string }) => [m.message_id, m.created_at]));
      const older = (json.messages as { message_id: string; parent_id: string | null; created_at: string }[])
        .filter((m) => m.parent_id !== null && m.created_at < stored.get(m.parent_id)!)
        .map((m) => `${m.created_at} < ${stored.get(m.parent_id!)}`);
      expect(older, 'messages older than their parent').to.deep.equal([]);
      const told = answers.map((a) => (a.json.message ? [a.json.message.message_id, a.json.message.created_at] : [a.json.message_id, a.json.created_at]));
      expect(told.filter(([id, at]) => stored.get(id) !== at), 'answers whose time is not the one stored').to.deep.equal([]);
    });

    it('the same message_id in another conversation gives 409', async () => {
      const ids = aConversation();
      const messageId = uid('msg');
      await save({ ...ids, message_id: messageId, role: 'user', text: 'x' });
      const res = await save({ user_id: ids.user_id, conversation_id: uid('conv'), message_id: messageId, role: 'user', text: 'x' });
      expect(res.status).to.equal(409);
      expect(res.json.detail).to.equal(`message_id ${JSON.stringify(messageId)} is already taken; choose another`);
      // Another user learns no more than that.
      const other = await save({ user_id: uid('other'), conversation_id: uid('conv'), message_id: messageId, role: 'user', text: 'x' });
      expect(other.json.detail).to.equal(`message_id ${JSON.stringify(messageId)} is already taken; choose another`);
    });

    it("gives 404 for another user's conversation", async () => {
      const ids = aConversation();
      await save({ ...ids, role: 'user', text: 'mine' });
      const res = await save({ ...ids, user_id: uid('intruder'), role: 'user', text: 'theirs' });
      expect(res.status).to.equal(404);
      expect(texts(await load(ids))).to.deep.equal(['mine']);
    });

    for (const [name, change, detail] of [
      ['an unknown role', { role: 'robot' }, 'role: must be one of user, assistant, system'],
      ['a missing role', { role: undefined }, 'role: is required'],
      ['empty text', { text: '' }, 'text: must be a non-empty string'],
      ['a bad created_at', { created_at: 'yesterday' }, 'created_at: must be an ISO 8601 timestamp'],
      ['a created_at past the year 9999 in UTC', { created_at: '9999-12-31T23:59:59.999-23:59' }, 'created_at: must lie between the years 0001 and 9999 in UTC'],
      // PostgreSQL has no year 0: it refused the statement, a 500.
      ['a created_at in the year 0000 in UTC', { created_at: '0001-01-01T00:00:30+01:00' }, 'created_at: must lie between the years 0001 and 9999 in UTC'],
      ['created_at without a time zone', { created_at: '2026-11-22T10:00:00' }, 'created_at: must be an ISO 8601 timestamp'],
      ['array metadata', { metadata: [1] }, 'metadata: must be a JSON object'],
      ['huge metadata', { metadata: { blob: 'x'.repeat(20_000) } }, 'metadata: must be at most'],
      ['a missing conversation_id', { conversation_id: undefined }, 'conversation_id: is required'],
    ] as const) {
      it(`400 for ${name}`, async () => {
        const base: Record<string, unknown> = { ...aConversation(), role: 'user', text: 'x' };
        const res = await save({ ...base, ...change });
        expect(res.status).to.equal(400);
        expect(res.json.detail).to.satisfy((d: string) => d.startsWith(detail), res.json.detail);
      });
    }

    it('400 for a body that is not UTF-8 (its bytes were decoded as U+FFFD and stored); a U+FFFD sent as such is kept', async () => {
      const ids = aConversation();
      const head = Buffer.from(`{"user_id":${JSON.stringify(ids.user_id)},"conversation_id":${JSON.stringify(ids.conversation_id)},"role":"user","text":"bad `);
      for (const bytes of [[0xed, 0xa0, 0x80], [0xff], [0xf0, 0x9f, 0x98]]) {
        const raw = Buffer.concat([head, Buffer.from(bytes), Buffer.from(' x"}')]);
        const res = await service.call('POST', '/api/chat/saveMessage', { raw, headers: { 'content-type': 'application/json' } });
        expect(res.status, res.text).to.equal(400);
        expect(res.json.detail).to.equal('body: is not valid UTF-8');
      }
      const sent = Buffer.concat([head, Buffer.from('\uFFFD', 'utf8'), Buffer.from(' x"}')]);
      const kept = await service.call('POST', '/api/chat/saveMessage', { raw: sent, headers: { 'content-type': 'application/json' } });
      expect(kept.status, kept.text).to.equal(201);
      expect(kept.json.message.text).to.equal('bad \uFFFD x');
    });

    it('400 for a number in metadata out of range (1e400 parses as Infinity: it was stored as null)', async () => {
      const ids = aConversation();
      const raw = `{"user_id":${JSON.stringify(ids.user_id)},"conversation_id":${JSON.stringify(ids.conversation_id)},"role":"user","text":"x","metadata":{"a":1e400,"b":[-1e400]}}`;
      const res = await service.call('POST', '/api/chat/saveMessage', { raw, headers: { 'content-type': 'application/json' } });
      expect(res.status, res.text).to.equal(400);
      expect(res.json.detail).to.match(/^metadata: numbers must be within the range of a double/);
    });
  });

  describe('POST /api/chat/loadMessages', () => {
    const seeded = async (count: number) => {
      const ids = aConversation();
      for (let i = 0; i < count; i++) {
        await save({ ...ids, role: i % 2 ? 'assistant' : 'user', text: `m${i}`, created_at: `2026-11-22T10:00:${String(i % 3).padStart(2, '0')}.000Z` });
      }
      return ids;
    };
    /** created_at order, ties in insertion order. */
    const expected = (count: number) =>
      Array.from({ length: count }, (_, i) => i).sort((a, b) => (a % 3) - (b % 3) || a - b).map((i) => `m${i}`);

    it('returns the messages oldest first with the contract fields', async () => {
      const ids = await seeded(5);
      const res = await load(ids);
      expect(res.status).to.equal(200);
      expect(res.json).to.include({ status: 'ok', conversation_id: ids.conversation_id, next_cursor: null });
      expect(texts(res)).to.deep.equal(expected(5));
      expect(Object.keys(res.json.messages[0]).sort()).to.deep.equal(
        ['conversation_id', 'created_at', 'message_id', 'metadata', 'parent_id', 'role', 'status', 'text', 'user_id'].sort(),
      );
    });

    for (const order of ['asc', 'desc'] as const) {
      it(`pages through ${order} with cursors, never overlapping or skipping`, async () => {
        const ids = await seeded(12);
        const seen: string[] = [];
        let cursor: string | null | undefined;
        do {
          const res = await load({ ...ids, limit: 5, order, ...(cursor ? { cursor } : {}) });
          expect(res.status).to.equal(200);
          seen.push(...texts(res));
          cursor = res.json.next_cursor;
        } while (cursor);
        const all = expected(12);
        expect(seen).to.deep.equal(order === 'asc' ? all : [...all].reverse());
      });
    }

    for (const order of ['asc', 'desc'] as const) {
      it(`the active branch (the default listing), ${order}: a cursor whose last message was deleted meanwhile still gives the rest`, async () => {
        const ids = aConversation();
        for (let i = 0; i < 4; i++) expect((await save({ ...ids, message_id: `${ids.conversation_id}-m${i}`, role: 'user', text: `m${i}` })).status).to.equal(201);
        const branchOnly = (body: Record<string, unknown>) => service.post('/api/chat/loadMessages', { ...ids, limit: 2, order, ...body });
        const first = await branchOnly({});
        const anchor = first.json.messages.at(-1).message_id;
        const deleted = await service.call('DELETE', '/api/chat/deleteMessages', { body: { ...ids, message_ids: [anchor] } });
        expect(deleted.status).to.equal(200);
        const next = await branchOnly({ cursor: first.json.next_cursor });
        expect(next.status).to.equal(200);
        expect(texts(next)).to.deep.equal(order === 'asc' ? ['m2', 'm3'] : ['m1', 'm0']);
        expect(next.json.next_cursor).to.equal(null);
      });
    }

    it('an unknown conversation is an empty list', async () => {
      const res = await load(aConversation());
      expect(res.status).to.equal(200);
      expect(res.json.messages).to.deep.equal([]);
      expect(res.json.next_cursor).to.equal(null);
    });

    it("another user's conversation is 404", async () => {
      const ids = await seeded(1);
      expect((await load({ ...ids, user_id: uid('other') })).status).to.equal(404);
    });

    it('refuses unreadable cursors and cursors made for another conversation or order', async () => {
      const ids = await seeded(3);
      const { json } = await load({ ...ids, limit: 1 });
      const other = await seeded(3);
      for (const body of [
        { ...ids, cursor: 'not-a-cursor' },
        { ...ids, cursor: '' },
        { ...ids, cursor: json.next_cursor, order: 'desc' },
        { ...other, cursor: json.next_cursor },
        // The shape of a real cursor, with an instant no store keeps (PostgreSQL refused the statement: a 500).
        ...[-8.64e15, 8.64e15].map((time) => ({ ...ids, cursor: Buffer.from(JSON.stringify({ v: 1, s: `messages:asc:${ids.conversation_id}`, k: [time, 1] })).toString('base64url') })),
      ]) {
        const res = await load(body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.json.detail).to.match(/^cursor: /);
      }
    });

    for (const [name, change, detail] of [
      ['limit 0', { limit: 0 }, 'limit: must be an integer from 1 to 500'],
      ['limit 501', { limit: 501 }, 'limit: must be an integer from 1 to 500'],
      ['limit 2.5', { limit: 2.5 }, 'limit: must be an integer from 1 to 500'],
      ['limit "10"', { limit: '10' }, 'limit: must be an integer from 1 to 500'],
      ['order "up"', { order: 'up' }, 'order: must be "asc" or "desc"'],
      ['a missing user_id', { user_id: undefined }, 'user_id: is required'],
    ] as const) {
      it(`400 for ${name}`, async () => {
        const res = await load({ ...aConversation(), ...change });
        expect(res.status).to.equal(400);
        expect(res.json.detail).to.equal(detail);
      });
    }
  });

  describe('DELETE /api/chat/deleteMessages', () => {
    const del = (body?: unknown, query = '') =>
      service.call('DELETE', `/api/chat/deleteMessages${query}`, body === undefined ? {} : { body });
    const threeMessages = async () => {
      const ids = aConversation();
      const saved = [];
      for (const text of ['a', 'b', 'c']) saved.push((await save({ ...ids, role: 'user', text })).json.message.message_id);
      return { ids, saved };
    };

    it('deletes exactly the listed messages and counts only real deletions', async () => {
      const { ids, saved } = await threeMessages();
      const res = await del({ ...ids, message_ids: [saved[0], saved[2], uid('unknown')] });
      expect(res.status).to.equal(200);
      expect(res.json).to.deep.equal({ status: 'ok', deleted: 2 });
      expect(texts(await load(ids))).to.deep.equal(['b']);
    });

    it('deletes everything with all: true', async () => {
      const { ids } = await threeMessages();
      expect((await del({ ...ids, all: true })).json).to.deep.equal({ status: 'ok', deleted: 3 });
      expect(texts(await load(ids))).to.deep.equal([]);
    });

    it('takes the fields as query parameters too, with the body winning', async () => {
      const { ids, saved } = await threeMessages();
      const query = `?user_id=${encodeURIComponent(ids.user_id)}&conversation_id=${encodeURIComponent(ids.conversation_id)}&message_ids=${saved[0]},${saved[1]}`;
      expect((await del(undefined, query)).json).to.deep.equal({ status: 'ok', deleted: 2 });
      const both = `?user_id=${encodeURIComponent(ids.user_id)}&conversation_id=${encodeURIComponent(ids.conversation_id)}&all=true`;
      expect((await del({ message_ids: [saved[2]] }, both)).status).to.equal(400); // all (query) and ids (body)
      expect((await del({ all: false, message_ids: [saved[2]] }, both)).json).to.deep.equal({ status: 'ok', deleted: 1 });
    });

    for (const [name, change] of [
      ['neither ids nor all', {}],
      ['both ids and all', { message_ids: ['x'], all: true }],
      ['empty ids and all false', { message_ids: [], all: false }],
    ] as const) {
      it(`400 for ${name}, deleting nothing`, async () => {
        const { ids } = await threeMessages();
        const res = await del({ ...ids, ...change });
        expect(res.status).to.equal(400);
        expect(res.json.status).to.equal('error');
        expect(texts(await load(ids))).to.have.length(3);
      });
    }

    it('400 for more than 1000 ids', async () => {
      const res = await del({ ...aConversation(), message_ids: Array.from({ length: 1001 }, (_, i) => `m${i}`) });
      expect(res.status).to.equal(400);
      expect(res.json.detail).to.equal('message_ids: must list at most 1000 ids');
    });

    it('an unknown conversation gives 200 with deleted: 0', async () => {
      expect((await del({ ...aConversation(), all: true })).json).to.deep.equal({ status: 'ok', deleted: 0 });
    });

    it("another user's conversation is 404 and nothing is deleted", async () => {
      const { ids } = await threeMessages();
      expect((await del({ ...ids, user_id: uid('other'), all: true })).status).to.equal(404);
      expect(texts(await load(ids))).to.have.length(3);
    });
  });

  describe('POST /api/chat/saveSession', () => {
    const saveSession = (body: Record<string, unknown>) => service.post('/api/chat/saveSession', body);

    it('creates a session with its messages: 201, counts, and every field', async () => {
      const ids = aConversation();
      const res = await saveSession({
        ...ids,
        title: 'Planning',
        started_at: '2026-11-22T10:00:00.000Z',
        metadata: { device: 'web' },
        messages: [
          { role: 'user', text: 'one', message_id: uid('m') },
          { role: 'assistant', text: 'two' },
        ],
      });
      expect(res.status).to.equal(201);
      expect(res.json.status).to.equal('ok');
      expect(res.json.messages_saved).to.equal(2);
      const session = res.json.session;
      expect(session).to.include({ ...ids, title: 'Planning', started_at: '2026-11-22T10:00:00.000Z', ended_at: null, message_count: 2 });
      expect(session.metadata).to.deep.equal({ device: 'web' });
      expect(session.session_id).to.be.a('string');
      expect(session.created_at).to.match(ISO_MS);
      expect(session.updated_at).to.match(ISO_MS);
      expect(texts(await load(ids))).to.deep.equal(['one', 'two']);
    });

    it('updates a session by id: 200, sent fields replaced, repeated messages not counted', async () => {
      const ids = aConversation();
      const messageId = uid('m');
      const first = await saveSession({ ...ids, title: 'Draft', messages: [{ message_id: messageId, role: 'user', text: 'hi' }] });
      const sessionId = first.json.session.session_id;
      const res = await saveSession({
        ...ids,
        session_id: sessionId,
        ended_at: '2026-11-22T12:00:00.000Z',
        messages: [{ message_id: messageId, role: 'user', text: 'hi' }, { role: 'user', text: 'new' }],
      });
      expect(res.status).to.equal(200);
      expect(res.json.messages_saved).to.equal(1);
      expect(res.json.session).to.include({ session_id: sessionId, title: 'Draft', ended_at: '2026-11-22T12:00:00.000Z', message_count: 2 });
    });

    it('an unknown session_id creates a session with that id', async () => {
      const sessionId = uid('session');
      const res = await saveSession({ ...aConversation(), session_id: sessionId });
      expect(res.status).to.equal(201);
      expect(res.json.session.session_id).to.equal(sessionId);
      expect(res.json.messages_saved).to.equal(0);
    });

    it('a session_id of another conversation gives 409', async () => {
      const ids = aConversation();
      const sessionId = uid('session');
      await saveSession({ ...ids, session_id: sessionId });
      const res = await saveSession({ ...ids, conversation_id: uid('conv'), session_id: sessionId });
      expect(res.status).to.equal(409);
    });

    it('stores nothing when one message is invalid', async () => {
      const ids = aConversation();
      const res = await saveSession({ ...ids, messages: [{ role: 'user', text: 'fine' }, { role: 'user', text: '' }] });
      expect(res.status).to.equal(400);
      expect(res.json.detail).to.equal('messages.1.text: must be a non-empty string');
      expect(texts(await load(ids))).to.deep.equal([]);
    });

    it('stores nothing when one message conflicts with a stored one', async () => {
      const ids = aConversation();
      const messageId = uid('m');
      await save({ ...ids, message_id: messageId, role: 'user', text: 'stored' });
      const res = await saveSession({ ...ids, messages: [{ role: 'user', text: 'fresh' }, { message_id: messageId, role: 'user', text: 'changed' }] });
      expect(res.status).to.equal(409);
      expect(texts(await load(ids))).to.deep.equal(['stored']);
    });

    it('one message_id twice in the request: 409 when the two differ (nothing stored), one message when they are the same', async () => {
      const ids = aConversation();
      const messageId = uid('m');
      const differing = await saveSession({ ...ids, messages: [{ message_id: messageId, role: 'user', text: 'q1' }, { message_id: messageId, role: 'user', text: 'q2' }] });
      expect(differing.status).to.equal(409);
      expect(differing.json.detail).to.include(messageId);
      expect(texts(await load(ids))).to.deep.equal([]);
      const same = await saveSession({ ...ids, messages: [{ message_id: messageId, role: 'user', text: 'q1' }, { message_id: messageId, role: 'user', text: 'q1' }] });
      expect(same.status).to.equal(201);
      expect(same.json.messages_saved).to.equal(1);
      expect(texts(await load(ids))).to.deep.equal(['q1']);
    });

    it('400 when ended_at is before started_at', async () => {
      const res = await saveSession({ ...aConversation(), started_at: '2026-11-22T12:00:00Z', ended_at: '2026-11-22T11:00:00Z' });
      expect(res.status).to.equal(400);
      expect(res.json.detail).to.equal('ended_at: must not be before started_at');
    });

    it('400 for more than 1000 messages', async () => {
      const messages = Array.from({ length: 1001 }, () => ({ role: 'user', text: 'x' }));
      const res = await saveSession({ ...aConversation(), messages });
      expect(res.status).to.equal(400);
      expect(res.json.detail).to.equal('messages: must hold at most 1000 messages');
    });

    it("another user's conversation is 404", async () => {
      const ids = aConversation();
      await saveSession(ids);
      expect((await saveSession({ ...ids, user_id: uid('other') })).status).to.equal(404);
    });
  });

  describe('GET /api/chat/conversations', () => {
    it("lists the user's conversations, most recently active first, in pages", async () => {
      const userId = uid('user');
      const conversations = [uid('c'), uid('c'), uid('c')];
      for (const conversationId of conversations) {
        await save({ user_id: userId, conversation_id: conversationId, role: 'user', text: `about ${conversationId}` });
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const first = await service.call('GET', `/api/chat/conversations?user_id=${userId}&limit=2`);
      expect(first.status).to.equal(200);
      expect(first.json.conversations.map((c: { conversation_id: string }) => c.conversation_id)).to.deep.equal([conversations[2], conversations[1]]);
      const item = first.json.conversations[0];
      expect(item).to.include({ title: `about ${conversations[2]}`, message_count: 1 });
      expect(item.created_at).to.match(ISO_MS);
      expect(item.last_message_at).to.match(ISO_MS);
      const second = await service.call('GET', `/api/chat/conversations?user_id=${userId}&limit=2&cursor=${first.json.next_cursor}`);
      expect(second.json.conversations.map((c: { conversation_id: string }) => c.conversation_id)).to.deep.equal([conversations[0]]);
      expect(second.json.next_cursor).to.equal(null);
    });

    it('400 without user_id or with a bad cursor', async () => {
      expect((await service.call('GET', '/api/chat/conversations')).json.detail).to.equal('user_id: is required');
      expect((await service.call('GET', '/api/chat/conversations?user_id=u&cursor=zzz')).status).to.equal(400);
    });
  });
}

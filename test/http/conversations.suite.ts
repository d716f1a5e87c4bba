import { expect } from 'chai';
import { uid } from '../support/ids.js';
import { readStream } from '../support/sse-client.js';
import type { TestService } from '../support/service.js';

/** Managing conversations: titles, rename, pin, archive, delete, temporary, erasure (in-memory store). */
export function conversationManagementSuite(start: () => Promise<TestService>): void {
  let service: TestService;
  before(async () => {
    service = await start();
  });
  after(() => service?.stop());

  const chat = async (body: Record<string, unknown>) => {
    const res = await service.post('/v1/chat', body);
    expect(res.status, res.text).to.equal(200);
    return res.json;
  };
  const get = (userId: string, conversationId: string) => service.call('GET', `/api/chat/conversations/${encodeURIComponent(conversationId)}?user_id=${encodeURIComponent(userId)}`);
  const patch = (conversationId: string, body: Record<string, unknown>) => service.call('PATCH', `/api/chat/conversations/${encodeURIComponent(conversationId)}`, { body });
  const remove = (userId: string, conversationId: string) => service.call('DELETE', `/api/chat/conversations/${encodeURIComponent(conversationId)}?user_id=${encodeURIComponent(userId)}`);
  const list = async (userId: string, query = '') => {
    const res = await service.call('GET', `/api/chat/conversations?user_id=${encodeURIComponent(userId)}${query}`);
    expect(res.status, res.text).to.equal(200);
    return res.json.conversations as { conversation_id: string; title: string; pinned: boolean; archived: boolean }[];
  };

  it('the first reply names the conversation from its first message; GET shows the whole object', async () => {
    const user = uid('user');
    const first = await chat({ user_id: user, text: 'Plan a long weekend trip to the mountains with my two kids and the dog' });
    const res = await get(user, first.conversation_id);
    expect(res.status).to.equal(200);
    expect(res.json.conversation).to.include({
      conversation_id: first.conversation_id,
      user_id: user,
      title: 'Plan a long weekend trip to the mountains with my two kids',
      title_source: 'first_message',
      message_count: 2,
      head_id: first.message_id,
      pinned: false,
      archived: false,
      temporary: false,
      expires_at: null,
    });
    await chat({ user_id: user, conversation_id: first.conversation_id, text: 'Something else entirely' });
    expect((await get(user, first.conversation_id)).json.conversation.title, 'only the first turn names it').to.equal('Plan a long weekend trip to the mountains with my two kids');
    expect((await get(uid('intruder'), first.conversation_id)).status).to.equal(404);
    expect((await get(user, uid('none'))).status).to.equal(404);
  });

  it('a conversation saved to before its first reply is named after its first user message, not the question that reply answers', async () => {
    const user = uid('user');
    const conversationId = uid('conv');
    for (const [role, text] of [['system', 'Be brief.'], ['user', 'Plan a trip to Lisbon'], ['assistant', 'Gladly.']] as const) {
      expect((await service.post('/api/chat/saveMessage', { user_id: user, conversation_id: conversationId, role, text })).status).to.equal(201);
    }
    const { events } = await readStream(`${service.url}/v1/chat/stream`, { user_id: user, conversation_id: conversationId, text: 'Where should we stay?' });
    expect(events.find((e) => e.event === 'title')?.json).to.include({ title: 'Plan a trip to Lisbon', title_source: 'first_message' });
    expect((await get(user, conversationId)).json.conversation.title).to.equal('Plan a trip to Lisbon');
  });

  it("the first turn's stream carries the title before done; a user's title is never replaced", async () => {
    const user = uid('user');
    const conversationId = uid('conv');
    const named = await service.post('/api/chat/saveMessage', { user_id: user, conversation_id: conversationId, role: 'system', text: 'setup' });
    expect(named.status).to.equal(201);
    const renamed = await patch(conversationId, { user_id: user, title: '  My own title  ' });
    expect(renamed.json.conversation).to.include({ title: 'My own title', title_source: 'user' });
    const { events } = await readStream(`${service.url}/v1/chat/stream`, { user_id: user, conversation_id: conversationId, text: 'hello there' });
    expect(events.map((e) => e.event)).to.not.include('title');
    expect((await get(user, conversationId)).json.conversation.title).to.equal('My own title');
    const back = await patch(conversationId, { user_id: user, title: null });
    expect(back.json.conversation.title_source).to.not.equal('user');

    const fresh = await readStream(`${service.url}/v1/chat/stream`, { user_id: user, text: 'Tell me about owls' });
    const names = fresh.events.map((e) => e.event);
    expect(names.slice(-2)).to.deep.equal(['title', 'done']);
    expect(fresh.events.at(-2)!.json).to.deep.equal({ conversation_id: fresh.events[0]!.json.conversation_id, title: 'Tell me about owls', title_source: 'first_message' });
  });

  it('a title handed back (null), and a conversation only saved to, show the start of the first message: at most 60 code points, cut at a word', async () => {
    const user = uid('user');
    const text = 'Planning a trip to Portugal next spring with my family and two dogs, what should we see first?';
    const expected = 'Planning a trip to Portugal next spring with my family and';
    const { conversation_id: chatted } = await chat({ user_id: user, text });
    expect((await get(user, chatted)).json.conversation.title).to.equal(expected);
    await patch(chatted, { user_id: user, title: 'Mine' });
    const back = await patch(chatted, { user_id: user, title: null });
    expect(back.json.conversation).to.include({ title: expected, title_source: 'first_message' });
    const saved = uid('conv');
    expect((await service.post('/api/chat/saveMessage', { user_id: user, conversation_id: saved, role: 'user', text })).status).to.equal(201);
    expect((await get(user, saved)).json.conversation).to.include({ title: expected, title_source: 'first_message' });
    const listed = await list(user);
    expect(listed.map((c) => c.title)).to.deep.equal([expected, expected]);
  });

  it("a session's title names its conversation by a user's title's rules: trimmed, at most 200 code points, none when blank (the first message's then)", async () => {
    const user = uid('user');
    const text = 'Which trains run from Lisbon to Porto on Sundays?';
    const conversation = uid('conv');
    expect((await service.post('/api/chat/saveMessage', { user_id: user, conversation_id: conversation, role: 'user', text })).status).to.equal(201);
    for (const blank of ['', '   ', '\t\n']) {
      const saved = await service.post('/api/chat/saveSession', { user_id: user, conversation_id: conversation, title: blank });
      expect(saved.json.session.title, 'the session keeps it as sent').to.equal(blank);
      expect((await get(user, conversation)).json.conversation, JSON.stringify(blank)).to.include({ title: text, title_source: 'first_message' });
    }
    const long = `  ${'🚆'.repeat(300)}  `;
    expect((await service.post('/api/chat/saveSession', { user_id: user, conversation_id: conversation, title: long })).status, '300 emoji: 600 UTF-16 units, 300 code points').to.equal(201);
    const shown = (await get(user, conversation)).json.conversation;
    expect([shown.title, shown.title_source]).to.deep.equal(['🚆'.repeat(200), 'user']);
    expect((await list(user)).find((c) => c.conversation_id === conversation)?.title).to.equal('🚆'.repeat(200));
    await service.post('/api/chat/saveSession', { user_id: user, conversation_id: conversation, title: '  Sunday trains  ' });
    expect((await get(user, conversation)).json.conversation).to.include({ title: 'Sunday trains', title_source: 'user' });
    expect((await service.post('/api/chat/saveSession', { user_id: user, conversation_id: conversation, title: '🚆'.repeat(501) })).status).to.equal(400);
  });

  it('PATCH validates: a blank or too long title, no field at all, wrong types are 400; another user 404', async () => {
    const user = uid('user');
    const { conversation_id: id } = await chat({ user_id: user, text: 'hi' });
    for (const body of [{ title: '   ' }, { title: 'x'.repeat(201) }, {}, { pinned: 'yes' }, { archived: 1 }]) {
      const res = await patch(id, { user_id: user, ...body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.json.status).to.equal('error');
    }
    expect((await patch(id, { user_id: uid('other'), pinned: true })).status).to.equal(404);
  });

  it('lists pinned first, then by activity; archived only when asked; temporary never', async () => {
    const user = uid('user');
    const a = await chat({ user_id: user, text: 'first' });
    const b = await chat({ user_id: user, text: 'second' });
    const c = await chat({ user_id: user, text: 'third' });
    const temporary = await chat({ user_id: user, text: 'secret', temporary: true });
    await patch(a.conversation_id, { user_id: user, pinned: true });
    await patch(b.conversation_id, { user_id: user, archived: true });
    expect((await list(user)).map((x) => x.conversation_id)).to.deep.equal([a.conversation_id, c.conversation_id]);
    expect((await list(user, '&archived=true')).map((x) => x.conversation_id)).to.deep.equal([b.conversation_id]);
    const paged = await service.call('GET', `/api/chat/conversations?user_id=${user}&limit=1`);
    const second = await service.call('GET', `/api/chat/conversations?user_id=${user}&limit=1&cursor=${paged.json.next_cursor}`);
    expect([paged.json.conversations[0].conversation_id, second.json.conversations[0].conversation_id]).to.deep.equal([a.conversation_id, c.conversation_id]);
    const shown = (await get(user, temporary.conversation_id)).json.conversation;
    expect(shown.temporary).to.equal(true);
    expect(Date.parse(shown.expires_at) - Date.parse(shown.last_message_at)).to.equal(24 * 3_600_000);
  });

  it('DELETE removes the conversation, its messages and sessions; nothing of it can be read afterwards', async () => {
    const user = uid('user');
    const first = await chat({ user_id: user, text: 'to be forgotten' });
    const id = first.conversation_id;
    await service.post('/api/chat/saveSession', { user_id: user, conversation_id: id, title: 'a session' });
    const spoken = await service.call('GET', `/api/tts?message_id=${first.message_id}&user_id=${user}`);
    expect(spoken.status).to.equal(200);
    expect((await remove(uid('intruder'), id)).status).to.equal(404);
    const deleted = await remove(user, id);
    expect(deleted.json).to.deep.equal({ status: 'ok', deleted: { conversations: 1, messages: 2, sessions: 1 } });
    expect((await remove(user, id)).json.deleted).to.deep.equal({ conversations: 0, messages: 0, sessions: 0 });
    expect((await get(user, id)).status).to.equal(404);
    const loaded = await service.post('/api/chat/loadMessages', { user_id: user, conversation_id: id });
    expect(loaded.json.messages).to.deep.equal([]);
    expect((await service.call('GET', `/v1/chat/stream/${first.message_id}?user_id=${user}`)).status).to.equal(404);
    expect((await service.call('GET', `/api/tts?message_id=${first.message_id}&user_id=${user}`)).status).to.equal(404);
    expect((await list(user)).map((x) => x.conversation_id)).to.not.include(id);
  });

  it('DELETE /api/users/{user_id} erases everything of the user, and nobody else', async () => {
    const user = uid('user');
    const other = uid('other');
    const a = await chat({ user_id: user, text: 'one' });
    await chat({ user_id: user, text: 'two' });
    await service.post('/api/chat/saveSession', { user_id: user, conversation_id: a.conversation_id, title: 's' });
    const kept = await chat({ user_id: other, text: 'kept' });
    const erased = await service.call('DELETE', `/api/users/${encodeURIComponent(user)}`);
    expect(erased.status).to.equal(200);
    expect(erased.json.deleted).to.deep.equal({ users: 1, conversations: 2, messages: 4, sessions: 1 });
    expect(await list(user)).to.deep.equal([]);
    expect((await get(other, kept.conversation_id)).status).to.equal(200);
    const again = await service.call('DELETE', `/api/users/${encodeURIComponent(user)}`);
    expect(again.json.deleted).to.deep.equal({ users: 0, conversations: 0, messages: 0, sessions: 0 });
  });
}

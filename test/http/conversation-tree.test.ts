import { expect } from 'chai';
import type { ChatChunk, ChatModel, ChatReply, ChatRequest } from '../../src/application/ports/chat-model.js';
import { PlainChat, textOf } from '../support/ai-sdk-chat.js';
import { uid } from '../support/ids.js';
import { replyClient } from '../support/reply-client.js';
import { ScriptedChatModel } from '../support/scripted-chat-model.js';
import { startTestService, type TestService } from '../support/service.js';

/** A model that answers with what it was shown: the history it saw, then the question. */
class EchoModel implements ChatModel {
  readonly name = 'echo';
  readonly requests: ChatRequest[] = [];
  private answer(request: ChatRequest): string {
    this.requests.push(request);
    return `[${request.history.map((turn) => turn.text).join(' | ')}] ${request.text}`;
  }
  async complete(request: ChatRequest): Promise<ChatReply> {
    return { text: this.answer(request), finishReason: 'stop', model: 'echo-1', usage: null };
  }
  async *stream(request: ChatRequest): AsyncGenerator<ChatChunk> {
    yield { type: 'delta', text: this.answer(request) };
    yield { type: 'finish', finishReason: 'stop', model: 'echo-1', usage: null };
  }
}

describe('conversation tree: edit, regenerate, branches (HTTP)', function () {
  this.timeout(20_000);
  let service: TestService;
  const model = new EchoModel();
  before(async () => {
    service = await startTestService({}, { chatModel: model });
  });
  after(() => service?.stop());

  const who = () => ({ user_id: uid('user'), conversation_id: uid('conv') });
  const chat = async (body: Record<string, unknown>) => {
    const res = await service.post('/v1/chat', body);
    expect(res.status, res.text).to.equal(200);
    return res.json;
  };
  const load = async (body: Record<string, unknown>) => {
    const res = await service.post('/api/chat/loadMessages', body);
    expect(res.status, res.text).to.equal(200);
    return res.json;
  };
  const texts = (page: { messages: { text: string }[] }) => page.messages.map((m) => m.text);

  /** A: a1, B: b1 — then B edited: the question "B2" after a1. */
  async function edited() {
    const ids = who();
    const a = await chat({ ...ids, text: 'A' });
    const b = await chat({ ...ids, text: 'B' });
    const b2 = await chat({ ...ids, text: 'B2', parent_id: a.message_id });
    return { ids, a, b, b2 };
  }

  it('an edit (chat with parent_id) starts a branch; the model sees only that branch', async () => {
    const { ids, a, b, b2 } = await edited();
    expect(b2.response).to.equal(`[A | ${a.response}] B2`);
    const active = await load(ids);
    expect(texts(active)).to.deep.equal(['A', a.response, 'B2', b2.response]);
    expect(active.head_id).to.equal(b2.message_id);
    expect(active.messages[2]).to.include({ parent_id: a.message_id });
    expect(active.messages[2].siblings).to.deep.equal({ count: 2, index: 1, previous_id: b.user_message_id, next_id: null });
    const old = await load({ ...ids, leaf_id: b.message_id });
    expect(texts(old)).to.deep.equal(['A', a.response, 'B', b.response]);
    expect(old.head_id, 'listing another branch does not switch to it').to.equal(b2.message_id);
    const all = await load({ ...ids, branch: 'all' });
    expect(all.messages).to.have.length(6);
    expect(all.messages[0]).to.not.have.property('siblings');
  });

  it('an edit of the first message (parent_id: null) is a question with no parent beside it; the model sees nothing before it', async () => {
    const { ids, a } = await edited();
    const first = await chat({ ...ids, text: 'A2', parent_id: null });
    expect(first.response).to.equal('[] A2');
    const active = await load(ids);
    expect(texts(active)).to.deep.equal(['A2', first.response]);
    expect(active.messages[0]).to.include({ parent_id: null });
    expect(active.messages[0].siblings).to.deep.equal({ count: 2, index: 1, previous_id: a.user_message_id, next_id: null });
    const streamed = await service.post('/v1/chat/stream', { ...ids, text: 'A3', parent_id: null });
    expect(streamed.status, streamed.text).to.equal(200);
    expect((await load(ids)).messages[0].siblings).to.include({ count: 3, index: 2 });
    const back = await service.post('/api/chat/switchBranch', { ...ids, message_id: a.user_message_id });
    expect(back.status, back.text).to.equal(200);
    expect(texts(await load(ids)).slice(0, 2)).to.deep.equal(['A', a.response]);

    // saveMessage and saveSession: null is no parent; a stored message sent again with null under a parent is other content.
    const saved = await service.post('/api/chat/saveMessage', { ...ids, message_id: uid('root'), role: 'user', text: 'a new root', parent_id: null });
    expect(saved.status, saved.text).to.equal(201);
    expect(saved.json.message.parent_id).to.equal(null);
    const again = await service.post('/api/chat/saveMessage', { ...ids, message_id: a.message_id, role: 'assistant', text: a.response, parent_id: null });
    expect(again.status, again.text).to.equal(409);
    const session = await service.post('/api/chat/saveSession', {
      ...ids,
      messages: [
        { message_id: uid('s1'), role: 'user', text: 'one', parent_id: null },
        { message_id: uid('s2'), role: 'assistant', text: 'two' },
      ],
    });
    expect(session.status, session.text).to.equal(201);
    const page = await load(ids);
    expect(texts(page)).to.deep.equal(['one', 'two']);
    expect(page.messages[0].siblings.count).to.equal(5);
  });

  it('regenerate (plain) answers the same question again beside the earlier reply, which is kept', async () => {
    const { ids, a, b2 } = await edited();
    const again = await chat({ ...ids, regenerate: b2.message_id });
    expect(again.user_message_id).to.equal(b2.user_message_id);
    expect(again.message_id).to.not.equal(b2.message_id);
    expect(again.response).to.equal(`[A | ${a.response}] B2`);
    const active = await load({ ...ids, order: 'desc', limit: 1 });
    expect(active.messages[0]).to.include({ message_id: again.message_id, parent_id: b2.user_message_id });
    expect(active.messages[0].siblings).to.deep.equal({ count: 2, index: 1, previous_id: b2.message_id, next_id: null });
    const byQuestion = await chat({ ...ids, regenerate: b2.user_message_id });
    expect(byQuestion.user_message_id).to.equal(b2.user_message_id);
    expect((await load({ ...ids, order: 'desc', limit: 1 })).messages[0].siblings.count).to.equal(3);
  });

  it('switchBranch makes the newest message under a sibling the head; a cursor made before keeps to its branch', async () => {
    const { ids, a, b, b2 } = await edited();
    const firstPage = await load({ ...ids, limit: 2 });
    expect(texts(firstPage)).to.deep.equal(['A', a.response]);
    const switched = await service.post('/api/chat/switchBranch', { ...ids, message_id: b.user_message_id });
    expect(switched.status).to.equal(200);
    expect(switched.json).to.deep.equal({ status: 'ok', conversation_id: ids.conversation_id, head_id: b.message_id });
    // The cursor was made for the branch ending at b2's reply: it still pages that one.
    const rest = await load({ ...ids, limit: 2, cursor: firstPage.next_cursor });
    expect(texts(rest)).to.deep.equal(['B2', b2.response]);
    expect(texts(await load(ids))).to.deep.equal(['A', a.response, 'B', b.response]);
    // The next turn follows the new head, and sees only its branch.
    const c = await chat({ ...ids, text: 'C' });
    expect(c.response).to.equal(`[A | ${a.response} | B | ${b.response}] C`);
    for (const [body, status] of [
      [{ ...ids, message_id: uid('none') }, 404],
      [{ ...ids, user_id: uid('intruder'), message_id: b.message_id }, 404],
      [{ ...ids, conversation_id: uid('none'), message_id: b.message_id }, 404],
      [{ ...ids }, 400],
    ] as const) {
      const res = await service.post('/api/chat/switchBranch', body);
      expect(res.status, JSON.stringify(body)).to.equal(status);
      expect(res.json.status).to.equal('error');
    }
  });

  it("a branch cursor whose branch end, or whose last message and its parent, were deleted since is a 400 saying so, not an empty page that looks like the end", async () => {
    const ids = who();
    const saved: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await service.post('/api/chat/saveMessage', { ...ids, role: i % 2 ? 'assistant' : 'user', text: `m${i}` });
      expect(res.status, res.text).to.equal(201);
      saved.push(res.json.message.message_id);
    }
    const del = (messageIds: string[]) => service.call('DELETE', '/api/chat/deleteMessages', { body: { ...ids, message_ids: messageIds } });
    const next = (body: Record<string, unknown>) => service.post('/api/chat/loadMessages', { ...ids, ...body });
    const refused = { field: 'cursor', message: 'the messages it goes on from were deleted since: load the first page again' };
    // The branch's end (the head when the page was made) deleted.
    const first = await load({ ...ids, limit: 3 });
    expect((await del([saved[7]!])).status).to.equal(200);
    const afterEnd = await next({ limit: 50, cursor: first.next_cursor });
    expect(afterEnd.status, afterEnd.text).to.equal(400);
    expect(afterEnd.json.errors).to.deep.equal([refused]);
    // The page's last message and its parent deleted together.
    const down = await load({ ...ids, limit: 2, order: 'desc' });
    expect(texts(down)).to.deep.equal(['m6', 'm5']);
    expect((await del([saved[5]!, saved[4]!])).status).to.equal(200);
    const afterPair = await next({ limit: 50, order: 'desc', cursor: down.next_cursor });
    expect(afterPair.status, afterPair.text).to.equal(400);
    // Its last message alone deleted: the page goes on from its parent, as before.
    const one = await load({ ...ids, limit: 1 });
    expect((await del([saved[0]!])).status).to.equal(200);
    expect(texts(await load({ ...ids, limit: 50, cursor: one.next_cursor }))).to.deep.equal(['m1', 'm2', 'm3', 'm6']);
  });

  it('deleteMessages splices the tree, or takes whole subtrees with descendants: true', async () => {
    const { ids, a, b, b2 } = await edited();
    const spliced = await service.call('DELETE', '/api/chat/deleteMessages', { body: { ...ids, message_ids: [a.message_id] } });
    expect(spliced.json).to.deep.equal({ status: 'ok', deleted: 1 });
    const after = await load(ids);
    expect(texts(after)).to.deep.equal(['A', 'B2', b2.response]);
    expect(after.messages[1].parent_id).to.equal(a.user_message_id);
    const subtree = await service.call('DELETE', `/api/chat/deleteMessages?descendants=true&message_ids=${encodeURIComponent(b2.user_message_id)}`, {
      body: { user_id: ids.user_id, conversation_id: ids.conversation_id },
    });
    expect(subtree.json).to.deep.equal({ status: 'ok', deleted: 2 });
    const left = await load(ids);
    expect(left.head_id, 'the deleted head moved to the nearest message left on its path').to.equal(a.user_message_id);
    expect(texts(await load({ ...ids, leaf_id: b.message_id }))).to.deep.equal(['A', 'B', b.response]);
  });

  it('saveMessage and saveSession take parent_id; an unknown parent is 400, another parent for a stored id 409', async () => {
    const ids = who();
    const first = await service.post('/api/chat/saveMessage', { ...ids, role: 'user', text: 'root', message_id: 'root' });
    expect(first.json.message.parent_id).to.equal(null);
    const session = await service.post('/api/chat/saveSession', {
      ...ids,
      messages: [
        { role: 'user', text: 'one', message_id: 'one' },
        { role: 'assistant', text: 'two', message_id: 'two' },
        { role: 'user', text: 'beside', message_id: 'beside', parent_id: 'root' },
      ],
    });
    expect(session.status, session.text).to.equal(201);
    const loaded = await load({ ...ids, branch: 'all' });
    expect(loaded.messages.map((m: { message_id: string; parent_id: string | null }) => [m.message_id, m.parent_id])).to.deep.equal([
      ['root', null],
      ['one', 'root'],
      ['two', 'one'],
      ['beside', 'root'],
    ]);
    expect(loaded.head_id).to.equal('beside');
    const unknown = await service.post('/api/chat/saveMessage', { ...ids, role: 'user', text: 'x', parent_id: 'nowhere' });
    expect(unknown.status).to.equal(400);
    expect(unknown.json.detail).to.match(/^parent_id: /);
    const moved = await service.post('/api/chat/saveMessage', { ...ids, role: 'user', text: 'one', message_id: 'one', parent_id: 'two' });
    expect(moved.status).to.equal(409);
    const same = await service.post('/api/chat/saveMessage', { ...ids, role: 'user', text: 'one', message_id: 'one' });
    expect(same.status, 'an omitted parent_id is no difference').to.equal(200);
    const unknownChat = await service.post('/v1/chat', { ...ids, text: 'x', parent_id: 'nowhere' });
    expect(unknownChat.status).to.equal(400);
  });

  it('chat requests: text and regenerate together or neither, or regenerate of an unknown message, are refused', async () => {
    const { ids, b2 } = await edited();
    for (const [body, status] of [
      [{ ...ids, text: 'x', regenerate: b2.message_id }, 400],
      [{ ...ids }, 400],
      [{ user_id: ids.user_id, regenerate: b2.message_id }, 400],
      [{ ...ids, regenerate: uid('none') }, 404],
      [{ ...ids, user_id: uid('intruder'), regenerate: b2.message_id }, 404],
    ] as const) {
      const res = await service.post('/v1/chat', body);
      expect(res.status, JSON.stringify(body)).to.equal(status);
      expect(res.json.status).to.equal('error');
    }
    // A reply whose question was deleted: 404 saying so, not that the reply (which is there) is not found.
    await service.call('DELETE', '/api/chat/deleteMessages', { body: { ...ids, message_ids: [b2.user_message_id] } });
    const orphan = await service.post('/v1/chat', { ...ids, regenerate: b2.message_id });
    expect(orphan.status).to.equal(404);
    expect(orphan.json.detail).to.equal(`message ${JSON.stringify(b2.message_id)} answers no user message there is (it was deleted): nothing to answer again`);
    // An assistant message saved first never had a question: 404 saying that, not that one was deleted.
    const alone = { user_id: ids.user_id, conversation_id: uid('alone') };
    await service.post('/api/chat/saveMessage', { ...alone, role: 'assistant', text: 'Welcome!', message_id: uid('welcome') });
    const [welcome] = (await service.post('/api/chat/loadMessages', alone)).json.messages;
    const first = await service.post('/v1/chat', { ...alone, regenerate: welcome.message_id });
    expect(first.status).to.equal(404);
    expect(first.json.detail).to.equal(`message ${JSON.stringify(welcome.message_id)} answers no user message there is (no user message comes before it): nothing to answer again`);
  });

  it('regenerate of a saved reply after a system message answers the question above both; of the system message: 400', async () => {
    const ids = { user_id: uid('u'), conversation_id: uid('saved') };
    const saved = [['q', 'user', 'What is 2+2?'], ['s', 'system', 'Answer in words.'], ['a', 'assistant', 'Four.']] as const;
    for (const [id, role, text] of saved) {
      const res = await service.post('/api/chat/saveMessage', { ...ids, message_id: `${ids.conversation_id}-${id}`, role, text });
      expect(res.status, res.text).to.equal(201);
    }
    const again = await service.post('/v1/chat', { ...ids, regenerate: `${ids.conversation_id}-a` });
    expect(again.status, again.text).to.equal(200);
    expect(again.json.user_message_id).to.equal(`${ids.conversation_id}-q`);
    const bySystem = await service.post('/v1/chat', { ...ids, regenerate: `${ids.conversation_id}-s` });
    expect(bySystem.status, bySystem.text).to.equal(400);
    expect(bySystem.json.detail).to.match(/^regenerate: names a system message/);
    const branch = await service.post('/api/chat/loadMessages', ids);
    expect(branch.json.messages.map((m: { role: string }) => m.role)).to.deep.equal(['user', 'assistant']);
    expect(branch.json.messages[1].siblings).to.include({ count: 2, index: 1, previous_id: `${ids.conversation_id}-s` });
  });

  it("the AI SDK's regenerate() and an edit (a truncated list, a new message) work against the stored tree", async () => {
    const conversationId = uid('conv');
    const userId = uid('user');
    const chatOf = new PlainChat(`${service.url}/v1/chat/stream`, userId, conversationId);
    await chatOf.sendMessage({ text: 'First' });
    await chatOf.sendMessage({ text: 'Second' });
    const [first, firstReply, second, secondReply] = chatOf.messages;
    expect(textOf(secondReply)).to.equal(`[First | ${textOf(firstReply)}] Second`);
    const stored = await load({ user_id: userId, conversation_id: conversationId });
    expect(stored.messages.map((m: { message_id: string }) => m.message_id).slice(0, 1)).to.deep.equal([first!.id]);
    expect(stored.messages[2].message_id, 'the user message is stored under its UI id').to.equal(second!.id);

    await chatOf.regenerate();
    expect(chatOf.messages).to.have.length(4);
    expect(textOf(chatOf.messages[3])).to.equal(`[First | ${textOf(firstReply)}] Second`);
    const afterRegenerate = await load({ user_id: userId, conversation_id: conversationId, order: 'desc', limit: 1 });
    expect(afterRegenerate.messages[0].siblings.count).to.equal(2);

    // An edit of "Second": the list truncated before it, then a new message.
    chatOf.messages = chatOf.messages.slice(0, 2);
    await chatOf.sendMessage({ text: 'Second, edited' });
    expect(textOf(chatOf.messages.at(-1))).to.equal(`[First | ${textOf(firstReply)}] Second, edited`);
    const edited = await load({ user_id: userId, conversation_id: conversationId });
    expect(texts(edited)).to.deep.equal(['First', textOf(firstReply), 'Second, edited', textOf(chatOf.messages.at(-1))]);
    expect(edited.messages[2].siblings).to.include({ count: 2, index: 1 });
  });

  describe('a regenerated reply in progress', () => {
    let scripted: ScriptedChatModel;
    let live: TestService;
    before(async () => {
      scripted = new ScriptedChatModel();
      live = await startTestService({}, { chatModel: scripted });
    });
    after(() => live?.stop());

    it('streams, refuses another regenerate (409), and resumes and stops like any reply', async () => {
      const client = replyClient(live.url);
      const ids = who();
      const original = await client.start({ ...ids, text: 'Tell me' });
      (await scripted.nextCall()).say('First answer.').finish();
      const done = await original.end();
      const stream = await client.start({ ...ids, regenerate: done.json.message_id });
      const call = await scripted.nextCall();
      expect(call.request.text).to.equal('Tell me');
      call.say('Second ');
      const busy = await live.post('/v1/chat', { ...ids, regenerate: done.json.message_id });
      expect(busy.status).to.equal(409);
      const replyId = stream.events[0]!.json.message_id as string;
      await stream.until('Second ');
      const resumed = await client.resume(replyId, ids.user_id);
      const stopped = await client.stop(replyId, ids.user_id);
      expect(stopped.json.message).to.include({ text: 'Second ', parent_id: done.json.user_message_id });
      expect((await resumed.end()).json).to.include({ finish_reason: 'cancelled', response: 'Second ' });
    });
  });
});

import { expect } from 'chai';
import { uid } from '../support/ids.js';
import { capturedLogger } from '../support/log-capture.js';
import { startTestService, type TestService } from '../support/service.js';

/** MEMORY_STORE_MAX_MESSAGES: beyond it the least recently active conversations are dropped whole. */
describe('the in-memory store’s bound', () => {
  let service: TestService;
  let captured: ReturnType<typeof capturedLogger>;
  beforeEach(async () => {
    captured = capturedLogger('info');
    service = await startTestService({ MEMORY_STORE_MAX_MESSAGES: '10' }, { logger: captured.logger });
  });
  afterEach(() => service.stop());

  const secret = (n: number) => `SECRET-words-${n}`;
  const save = (userId: string, conversationId: string, text: string, messageId?: string) =>
    service.post('/api/chat/saveMessage', { user_id: userId, conversation_id: conversationId, role: 'user', text, ...(messageId ? { message_id: messageId } : {}) });
  const texts = async (userId: string, conversationId: string) =>
    (await service.post('/api/chat/loadMessages', { user_id: userId, conversation_id: conversationId, limit: 500 })).json.messages.map((m: { text: string }) => m.text);
  const warnings = () => captured.lines.filter((line) => line.includes('"level":40'));

  it('drops the least recently active conversation whole (messages, sessions, the conversation) and keeps the newest, with a warning', async () => {
    const user = uid('user');
    const [a, b, c] = [uid('a'), uid('b'), uid('c')];
    const bMessageId = uid('m');
    // a: a titled session with 4 messages; b: 4 messages and a titled session; then a is written to again.
    const session = await service.post('/api/chat/saveSession', {
      user_id: user,
      conversation_id: a,
      title: 'Session A',
      messages: [1, 2, 3, 4].map((n) => ({ role: 'user', text: secret(n) })),
    });
    expect(session.status).to.equal(201);
    for (const n of [5, 6, 7]) expect((await save(user, b, secret(n))).status).to.equal(201);
    expect((await save(user, b, secret(8), bMessageId)).status).to.equal(201);
    expect((await service.post('/api/chat/saveSession', { user_id: user, conversation_id: b, title: 'Session B' })).status).to.equal(201);
    expect((await save(user, a, secret(9))).status).to.equal(201);
    expect(warnings()).to.deep.equal([]); // 9 messages: within the bound

    // c brings the store to 12 messages: b, the least recently active, goes whole.
    for (const n of [10, 11, 12]) expect((await save(user, c, secret(n))).status).to.equal(201);

    expect(await texts(user, a)).to.deep.equal([1, 2, 3, 4, 9].map(secret));
    expect(await texts(user, c)).to.deep.equal([10, 11, 12].map(secret));
    expect(await texts(user, b)).to.deep.equal([]);
    const listed = await service.call('GET', `/api/chat/conversations?user_id=${user}`);
    expect(listed.json.conversations.map((x: { conversation_id: string }) => x.conversation_id)).to.deep.equal([c, a]);
    expect(listed.json.conversations[1]).to.include({ title: 'Session A', message_count: 5 });

    // Nothing of b is left: its message id is free again, and the conversation is anyone's.
    expect((await save(user, a, 'reused id', bMessageId)).status).to.equal(201);
    expect((await save(uid('other-user'), b, 'a new b')).status).to.equal(201);

    const [warning, ...more] = warnings();
    expect(more).to.deep.equal([]);
    expect(JSON.parse(warning!)).to.include({ droppedConversations: 1, droppedMessages: 4, droppedSessions: 1, maxMessages: 10 });
    expect(captured.lines.join('\n')).not.to.include('SECRET-words');
  });

  it('also bounds conversations and sessions without messages', async () => {
    const user = uid('user');
    const conversations = Array.from({ length: 12 }, () => uid('c'));
    for (const conversationId of conversations) {
      expect((await service.post('/api/chat/saveSession', { user_id: user, conversation_id: conversationId, title: 't' })).status).to.equal(201);
    }
    const listed = await service.call('GET', `/api/chat/conversations?user_id=${user}&limit=50`);
    expect(listed.json.conversations.map((x: { conversation_id: string }) => x.conversation_id)).to.deep.equal(conversations.slice(2).reverse());
  });
});

import { expect } from 'chai';
import { ID_RULE } from '../../src/domain/ids.js';
import { UNSTORABLE_RULE } from '../../src/domain/text.js';
import { uid } from '../support/ids.js';
import type { TestService } from '../support/service.js';

const NUL = '\u0000';
const HIGH = '\ud800'; // a lone surrogate: the first half of a pair, with no second half
const LOW = '\udc00';

/**
 * Text no store can keep as it was sent (a NUL, a lone surrogate) is refused with 400 naming
 * the field, wherever text, ids or metadata are accepted; nothing is stored. Written once and
 * run against every store, so they cannot differ. JSON carries these as \u0000 / \ud800 escapes.
 */
export function unstorableTextSuite(start: () => Promise<TestService>): void {
  let service: TestService;
  before(async () => {
    service = await start();
  });
  after(() => service?.stop());

  const ids = () => ({ user_id: uid('user'), conversation_id: uid('conv') });
  const message = (extra: Record<string, unknown>) => ({ ...ids(), role: 'user', text: 'fine', ...extra });
  const session = (extra: Record<string, unknown>) => ({ ...ids(), ...extra });

  const cases: [string, string, Record<string, unknown>, string, string][] = [
    ['saveMessage', '/api/chat/saveMessage', message({ text: `a${NUL}b` }), 'text', UNSTORABLE_RULE],
    ['saveMessage', '/api/chat/saveMessage', message({ text: `a${HIGH}b` }), 'text', UNSTORABLE_RULE],
    ['saveMessage', '/api/chat/saveMessage', message({ text: `${LOW}ab` }), 'text', UNSTORABLE_RULE],
    ['saveMessage', '/api/chat/saveMessage', message({ text: `ab${HIGH}` }), 'text', UNSTORABLE_RULE],
    ['saveMessage', '/api/chat/saveMessage', message({ metadata: { deep: [{ value: `x${NUL}` }] } }), 'metadata', `keys and strings ${UNSTORABLE_RULE}`],
    ['saveMessage', '/api/chat/saveMessage', message({ metadata: { [`key${HIGH}`]: 1 } }), 'metadata', `keys and strings ${UNSTORABLE_RULE}`],
    ['saveMessage', '/api/chat/saveMessage', message({ conversation_id: `c${HIGH}` }), 'conversation_id', UNSTORABLE_RULE],
    ['saveMessage', '/api/chat/saveMessage', message({ message_id: `m${LOW}` }), 'message_id', UNSTORABLE_RULE],
    ['saveMessage', '/api/chat/saveMessage', message({ user_id: `u${NUL}` }), 'user_id', ID_RULE],
    ['saveSession', '/api/chat/saveSession', session({ title: `t${NUL}` }), 'title', UNSTORABLE_RULE],
    ['saveSession', '/api/chat/saveSession', session({ metadata: { note: HIGH } }), 'metadata', `keys and strings ${UNSTORABLE_RULE}`],
    ['saveSession', '/api/chat/saveSession', session({ session_id: `s${HIGH}` }), 'session_id', UNSTORABLE_RULE],
    ['saveSession', '/api/chat/saveSession', session({ messages: [{ role: 'user', text: 'ok' }, { role: 'user', text: `x${LOW}` }] }), 'messages.1.text', UNSTORABLE_RULE],
    ['chat', '/v1/chat', { ...ids(), text: `hello${NUL}` }, 'text', UNSTORABLE_RULE],
    ['chat', '/v1/chat', { ...ids(), text: 'hello', message_id: `m${HIGH}` }, 'message_id', UNSTORABLE_RULE],
    ['chat stream', '/v1/chat/stream', { ...ids(), text: `hello${HIGH}` }, 'text', UNSTORABLE_RULE],
    [
      'chat stream (useChat body)',
      '/v1/chat/stream',
      { ...ids(), messages: [{ role: 'user', parts: [{ type: 'text', text: `hi${NUL}` }] }] },
      'messages.0',
      `text ${UNSTORABLE_RULE}`,
    ],
  ];
  for (const [endpoint, path, body, field, rule] of cases) {
    it(`${endpoint}: 400 naming ${field} for ${JSON.stringify(body).match(/\\u[0-9a-f]{4}/)![0]}, and nothing stored`, async () => {
      const res = await service.post(path, body);
      expect(res.status, res.text).to.equal(400);
      expect(res.json.detail).to.equal(`${field}: ${rule}`);
      const owner = { user_id: body.user_id as string, conversation_id: body.conversation_id as string };
      if (!String(owner.user_id).includes(NUL) && !String(owner.conversation_id).includes(HIGH)) {
        const loaded = await service.post('/api/chat/loadMessages', owner);
        expect(loaded.json.messages).to.deep.equal([]);
      }
    });
  }

  it('deleteMessages: 400 naming the message id holding a lone surrogate', async () => {
    const res = await service.call('DELETE', '/api/chat/deleteMessages', { body: { ...ids(), message_ids: ['ok', `m${HIGH}`] } });
    expect(res.status).to.equal(400);
    expect(res.json.detail).to.equal(`message_ids.1: ${UNSTORABLE_RULE}`);
  });

  it('well-formed text around them (surrogate pairs, U+FFFD itself) is stored as sent, and a retry matches it', async () => {
    const metadata = { '😀': '𝄞 \uFFFD' };
    const body = message({ message_id: uid('m'), text: 'emoji 😀 and \uFFFD', metadata });
    const first = await service.post('/api/chat/saveMessage', body);
    expect(first.status).to.equal(201);
    expect(first.json.message).to.include({ text: body.text });
    expect(first.json.message.metadata).to.deep.equal(metadata);
    const again = await service.post('/api/chat/saveMessage', body);
    expect(again.status).to.equal(200);
    const loaded = await service.post('/api/chat/loadMessages', { user_id: body.user_id, conversation_id: body.conversation_id });
    expect(loaded.json.messages[0]).to.include({ text: body.text });
  });
}

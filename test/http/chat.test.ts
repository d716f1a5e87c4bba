import { expect } from 'chai';
import type { ChatModel, ChatRequest } from '../../src/application/ports/chat-model.js';
import { ChatModelFailedError, ChatModelTimedOutError } from '../../src/domain/errors.js';
import { uid } from '../support/ids.js';
import { startTestService, type TestService } from '../support/service.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A model that records what it was asked and answers, or fails, as told. */
class ScriptedModel implements ChatModel {
  requests: ChatRequest[] = [];
  failure: Error | null = null;
  async complete(request: ChatRequest) {
    this.requests.push(request);
    if (this.failure) throw this.failure;
    return { text: `echo: ${request.text}`, finishReason: 'stop', model: 'scripted', usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 } };
  }
  async *stream(): AsyncIterable<never> {
    throw new Error('not used');
  }
}

describe('POST /v1/chat', () => {
  let service: TestService;
  const model = new ScriptedModel();
  before(async () => {
    service = await startTestService({}, { chatModel: model });
  });
  after(() => service?.stop());
  beforeEach(() => {
    model.requests = [];
    model.failure = null;
  });

  const load = (userId: string, conversationId: string) =>
    service.post('/api/chat/loadMessages', { user_id: userId, conversation_id: conversationId });

  it('answers, starts a conversation, and stores both messages', async () => {
    const userId = uid('user');
    const res = await service.post('/v1/chat', { text: 'Hello', user_id: userId });
    expect(res.status).to.equal(200);
    expect(res.json).to.include({ response: 'echo: Hello', status: 'ok' });
    expect(res.json.conversation_id).to.match(UUID_V7);
    expect(res.json.message_id).to.match(UUID_V7);
    expect(res.json.user_message_id).to.match(UUID_V7);
    expect(res.json.created_at).to.match(ISO_MS);
    const stored = await load(userId, res.json.conversation_id);
    expect(stored.json.messages.map((m: { role: string; text: string }) => [m.role, m.text])).to.deep.equal([
      ['user', 'Hello'],
      ['assistant', 'echo: Hello'],
    ]);
    const reply = stored.json.messages[1];
    expect(reply.message_id).to.equal(res.json.message_id);
    expect(reply.metadata).to.deep.equal({
      model: 'scripted',
      finish_reason: 'stop',
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
  });

  it('continues a conversation, and the model sees its history and the persona', async () => {
    const userId = uid('user');
    const conversationId = uid('conv');
    await service.post('/v1/chat', { text: 'first', user_id: userId, conversation_id: conversationId });
    const res = await service.post('/v1/chat', { text: 'second', user_id: userId, conversation_id: conversationId });
    expect(res.json.conversation_id).to.equal(conversationId);
    const request = model.requests.at(-1)!;
    expect(request.text).to.equal('second');
    expect(request.history).to.deep.equal([
      { role: 'user', text: 'first' },
      { role: 'assistant', text: 'echo: first' },
    ]);
    expect(request.persona.name).to.be.a('string').and.not.equal('');
    expect((await load(userId, conversationId)).json.messages).to.have.length(4);
  });

  it('replays an answered message_id without asking the model again', async () => {
    const userId = uid('user');
    const body = { text: 'once', user_id: userId, conversation_id: uid('conv'), message_id: uid('msg') };
    const first = await service.post('/v1/chat', body);
    const again = await service.post('/v1/chat', body);
    expect(again.status).to.equal(200);
    expect(again.json).to.deep.equal(first.json);
    expect(first.json.user_message_id).to.equal(body.message_id);
    expect(model.requests).to.have.length(1);
    expect((await load(userId, body.conversation_id)).json.messages).to.have.length(2);
  });

  it('replays a message_id that started a conversation when conversation_id is left out', async () => {
    const body = { text: 'new chat', user_id: uid('user'), message_id: uid('msg') };
    const first = await service.post('/v1/chat', body);
    const again = await service.post('/v1/chat', body);
    expect(again.json).to.deep.equal(first.json);
    expect(model.requests).to.have.length(1);
  });

  it('gives 409 when a message_id is reused with other text', async () => {
    const body = { text: 'original', user_id: uid('user'), conversation_id: uid('conv'), message_id: uid('msg') };
    await service.post('/v1/chat', body);
    const res = await service.post('/v1/chat', { ...body, text: 'changed' });
    expect(res.status).to.equal(409);
    expect(res.json.status).to.equal('error');
    expect(res.json.detail).to.include('message_id');
  });

  it("gives 404 for another user's conversation, and changes nothing", async () => {
    const owner = uid('owner');
    const conversationId = uid('conv');
    await service.post('/v1/chat', { text: 'mine', user_id: owner, conversation_id: conversationId });
    const res = await service.post('/v1/chat', { text: 'intruding', user_id: uid('other'), conversation_id: conversationId });
    expect(res.status).to.equal(404);
    expect(res.json).to.deep.include({ status: 'error' });
    expect((await load(owner, conversationId)).json.messages).to.have.length(2);
  });

  for (const [failure, status] of [
    [new ChatModelFailedError('the language model answered 500'), 502],
    [new ChatModelTimedOutError('the language model did not answer within 60000 ms'), 504],
  ] as const) {
    it(`gives ${status} when the model fails that way, keeping the user's message`, async () => {
      model.failure = failure;
      const userId = uid('user');
      const conversationId = uid('conv');
      const res = await service.post('/v1/chat', { text: 'are you there?', user_id: userId, conversation_id: conversationId, message_id: uid('msg') });
      expect(res.status).to.equal(status);
      expect(res.json).to.deep.equal({ detail: failure.message, status: 'error' });
      const stored = await load(userId, conversationId);
      expect(stored.json.messages.map((m: { text: string }) => m.text)).to.deep.equal(['are you there?']);
    });
  }

  it('a retry after a model failure answers once, without storing the message twice', async () => {
    const body = { text: 'retry me', user_id: uid('user'), conversation_id: uid('conv'), message_id: uid('msg') };
    model.failure = new ChatModelFailedError('down');
    expect((await service.post('/v1/chat', body)).status).to.equal(502);
    model.failure = null;
    const res = await service.post('/v1/chat', body);
    expect(res.status).to.equal(200);
    expect(model.requests.at(-1)!.history).to.deep.equal([]);
    expect((await load(body.user_id, body.conversation_id)).json.messages).to.have.length(2);
  });

  describe('validation', () => {
    const valid = { text: 'hi', user_id: 'u-1' };
    const cases: [string, unknown, string][] = [
      ['missing text', { user_id: 'u' }, 'text: is required'],
      ['empty text', { ...valid, text: '' }, 'text: must be a non-empty string'],
      ['blank text', { ...valid, text: ' \n\t ' }, 'text: must be a non-empty string'],
      ['numeric text', { ...valid, text: 42 }, 'text: must be a non-empty string'],
      ['missing user_id', { text: 'hi' }, 'user_id: is required'],
      ['empty user_id', { ...valid, user_id: '' }, 'user_id: must be'],
      ['user_id with a control character', { ...valid, user_id: 'a\u0007b' }, 'user_id: must be'],
      ['user_id of 129 characters', { ...valid, user_id: 'x'.repeat(129) }, 'user_id: must be'],
      ['conversation_id of the wrong type', { ...valid, conversation_id: 7 }, 'conversation_id: must be'],
      ['message_id of the wrong type', { ...valid, message_id: ['a'] }, 'message_id: must be'],
      ['an array body', [valid], 'body: must be a JSON object'],
      ['a string body', 'hello', 'body: must be a JSON object'],
    ];
    for (const [name, body, detail] of cases) {
      it(`400 for ${name}`, async () => {
        const res = await service.post('/v1/chat', body);
        expect(res.status).to.equal(400);
        expect(res.json.status).to.equal('error');
        expect(res.json.detail).to.satisfy((d: string) => d.startsWith(detail), res.json.detail);
        expect(res.json.errors).to.be.an('array').that.is.not.empty;
      });
    }

    it('accepts ids of 128 code points, emoji included', async () => {
      const res = await service.post('/v1/chat', { text: 'hi', user_id: '😀'.repeat(128) });
      expect(res.status).to.equal(200);
    });

    it('counts the text limit in code points', async () => {
      const small = await startTestService({ MAX_TEXT_LENGTH: '5' }, { chatModel: model });
      try {
        expect((await small.post('/v1/chat', { text: '😀😀😀😀😀', user_id: 'u' })).status).to.equal(200);
        const res = await small.post('/v1/chat', { text: '😀😀😀😀😀😀', user_id: 'u' });
        expect(res.status).to.equal(400);
        expect(res.json.detail).to.equal('text: must be at most 5 characters');
      } finally {
        await small.stop();
      }
    });

    it('treats null conversation_id as absent', async () => {
      const res = await service.post('/v1/chat', { text: 'hi', user_id: uid('u'), conversation_id: null });
      expect(res.status).to.equal(200);
      expect(res.json.conversation_id).to.match(UUID_V7);
    });
  });
});

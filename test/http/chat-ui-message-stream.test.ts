import { parseJsonEventStream, uiMessageChunkSchema, type UIMessageChunk } from 'ai';
import { expect } from 'chai';
import type { ChatModel } from '../../src/application/ports/chat-model.js';
import { ChatModelFailedError } from '../../src/domain/errors.js';
import { PlainChat, textOf } from '../support/ai-sdk-chat.js';
import { documentedFetch } from '../support/documented-responses.js';
import { uid } from '../support/ids.js';
import { startTestService, type TestService } from '../support/service.js';

describe('POST /v1/chat/stream as a Vercel AI SDK UI message stream', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service?.stop());
  const api = () => `${service.url}/v1/chat/stream`;
  const load = async (userId: string, conversationId: string) =>
    (await service.post('/api/chat/loadMessages', { user_id: userId, conversation_id: conversationId })).json.messages as { message_id: string; role: string; text: string }[];

  it("serves the AI SDK's own Chat (what useChat runs) with its default request body", async () => {
    const userId = uid('u');
    const chat = new PlainChat(api(), userId);
    await chat.sendMessage({ text: 'Hello! Who are you?' });
    expect(chat.status).to.equal('ready');
    expect(chat.error).to.equal(undefined);
    expect(chat.messages.map((m) => m.role)).to.deep.equal(['user', 'assistant']);
    // useChat's chat id is the conversation: the stored reply is exactly what the chat shows.
    const stored = await load(userId, chat.id);
    expect(stored.map((m) => [m.role, m.text])).to.deep.equal([
      ['user', 'Hello! Who are you?'],
      ['assistant', textOf(chat.messages[1])],
    ]);
    expect(chat.messages[1]!.id).to.equal(stored[1]!.message_id);
    expect(chat.messages[1]!.metadata).to.deep.include({ conversation_id: chat.id, message_id: stored[1]!.message_id, finish_reason: 'stop' });

    await chat.sendMessage({ text: 'Tell me more' });
    expect(chat.messages).to.have.length(4);
    expect((await load(userId, chat.id)).map((m) => m.text)).to.deep.equal(chat.messages.map(textOf));
  });

  it('with X-Stream-Protocol: ui-message, the ordinary body gets chunks the SDK parser accepts, in order, then [DONE]', async () => {
    const res = await documentedFetch(api(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-stream-protocol': 'ui-message' },
      body: JSON.stringify({ text: 'hello', user_id: uid('u') }),
    });
    expect(res.headers.get('x-vercel-ai-ui-message-stream')).to.equal('v1');
    expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
    const [forParser, forRaw] = res.body!.tee();
    const chunks: UIMessageChunk[] = [];
    for await (const result of parseJsonEventStream({ stream: forParser, schema: uiMessageChunkSchema })) {
      if (!result.success) throw result.error;
      chunks.push(result.value);
    }
    const raw = await new Response(forRaw).text();
    expect(raw.endsWith('data: [DONE]\n\n')).to.equal(true);
    const types = chunks.map((c) => c.type);
    expect(types.slice(0, 2)).to.deep.equal(['start', 'text-start']);
    expect(types.slice(-2)).to.deep.equal(['text-end', 'finish']);
    // A first turn names its conversation (a transient data part) before the end.
    expect(types.at(-3)).to.equal('data-title');
    expect(chunks.at(-3)).to.deep.include({ data: { conversation_id: (chunks[0] as { messageMetadata: { conversation_id: string } }).messageMetadata.conversation_id, title: 'hello', title_source: 'first_message' } });
    expect(types.slice(2, -3).every((t) => t === 'text-delta')).to.equal(true);
    expect(chunks.at(-1)).to.deep.include({ type: 'finish', finishReason: 'stop' });
  });

  it('a model failure reaches the chat as its error', async () => {
    const failing: ChatModel = {
      complete: () => Promise.reject(new Error('not used')),
      // eslint-disable-next-line require-yield
      async *stream() {
        throw new ChatModelFailedError('the language model answered 503 Service Unavailable');
      },
    };
    const failingService = await startTestService({}, { chatModel: failing });
    try {
      const chat = new PlainChat(`${failingService.url}/v1/chat/stream`, uid('u'));
      await chat.sendMessage({ text: 'hello' });
      expect(chat.status).to.equal('error');
      expect(chat.error?.message).to.equal('the language model answered 503 Service Unavailable');
    } finally {
      await failingService.stop();
    }
  });

  it('an unusable useChat body is an ordinary JSON 400', async () => {
    const body = { id: 'chat-1', user_id: 'u', messages: [{ id: 'm1', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }] };
    const res = await service.post('/v1/chat/stream', body);
    expect(res.status).to.equal(400);
    expect(res.json).to.deep.include({ detail: 'messages.0: the last message must be a user message with text', status: 'error' });
    const missingUser = await service.post('/v1/chat/stream', { ...body, user_id: undefined });
    expect(missingUser.json.detail).to.equal('user_id: is required');
  });
});

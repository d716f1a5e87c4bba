import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { systemPromptFor } from '../../src/domain/persona.js';
import { JsonFilePersonaSource } from '../../src/adapters/persona/json-file-persona-source.js';
import { FAKE_MODEL, startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fake-openai-server.js';
import { uid } from '../support/ids.js';
import { EventReader, expectWholeStream, type StreamEvent } from '../support/response-events.js';
import { failure, responsesClient } from '../support/responses-client.js';
import { startTestService, type TestService } from '../support/service.js';
import { openStream, readStream, type StreamedEvent } from '../support/sse-client.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Stored = any;

/** Polls until `check` stops throwing (state that settles just after a client disconnects). */
async function eventually<T>(check: () => Promise<T>, timeoutMs = 2000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await sleep(20);
    }
  }
}

describe('chat with LLM_PROVIDER=openai, against a local OpenAI-compatible server', () => {
  let fake: FakeOpenAiServer;
  const environment = (): Record<string, string> => ({
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: fake.baseUrl,
    LLM_MODEL: FAKE_MODEL,
    LLM_API_KEY: 'sk-local-test',
    LLM_TIMEOUT_MS: '500',
    LLM_MAX_RETRIES: '0',
    // These tests script the model's every call; naming conversations by the model (the default
    // with a model) is tested on its own below.
    TITLE_MODE: 'first_message',
  });
  let service: TestService;
  const persona = new JsonFilePersonaSource().persona();
  before(async () => {
    fake = await startFakeOpenAiServer();
    service = await startTestService(environment());
  });
  after(async () => {
    await service.stop();
    await fake.stop();
  });
  beforeEach(() => fake.reset());

  const load = async (userId: string, conversationId: string): Promise<Stored[]> =>
    (await service.post('/api/chat/loadMessages', { user_id: userId, conversation_id: conversationId })).json.messages;
  const stream = (body: unknown) => readStream(`${service.url}/v1/chat/stream`, body);
  const deltas = (events: StreamedEvent[]) => events.filter((e) => e.event === 'delta').map((e) => e.json.text).join('');

  describe('POST /v1/chat', () => {
    it('answers from the server, which received the persona, the history and the message', async () => {
      const userId = uid('u');
      const conversationId = uid('c');
      await service.post('/v1/chat', { text: 'first', user_id: userId, conversation_id: conversationId });
      const res = await service.post('/v1/chat', { text: 'second', user_id: userId, conversation_id: conversationId });
      expect(res.status).to.equal(200);
      expect(res.json.response).to.equal('You said: second. Tell me more!');
      expect(fake.requests.at(-1)!.body.messages).to.deep.equal([
        { role: 'system', content: systemPromptFor(persona) },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'You said: first. Tell me more!' },
        { role: 'user', content: 'second' },
      ]);
      expect(fake.requests.at(-1)!.headers.authorization).to.equal('Bearer sk-local-test');
      const reply = (await load(userId, conversationId)).at(-1);
      expect(reply.metadata).to.deep.equal({ model: FAKE_MODEL, finish_reason: 'stop', usage: { prompt_tokens: 11, completion_tokens: 6, total_tokens: 17 } });
    });

    it('502 when the server fails, naming the status; the user message stays stored', async () => {
      fake.fallback = { kind: 'fail', status: 500 };
      const body = { text: 'are you there?', user_id: uid('u'), conversation_id: uid('c') };
      const res = await service.post('/v1/chat', body);
      expect(res.status).to.equal(502);
      expect(res.json).to.deep.equal({ detail: 'the language model answered 500 Internal Server Error', status: 'error' });
      expect((await load(body.user_id, body.conversation_id)).map((m) => m.role)).to.deep.equal(['user']);
    });

    it("through OpenAI's Responses API, a model's failure is not retried by OpenAI's SDK (x-should-retry: false): the question is stored once", async () => {
      fake.fallback = { kind: 'fail', status: 500 };
      const user = uid('u');
      const client = await responsesClient(service, user, { maxRetries: 2 }); // the SDK's default
      const conversation = await client.conversations.create();
      const failed = await failure(client.responses.create({ model: 'm', input: 'are you there?', conversation: conversation.id }));
      expect(failed.status).to.equal(502);
      expect(failed.headers?.get('x-should-retry')).to.equal('false');
      expect(fake.requests).to.have.length(1);
      const items = await client.conversations.items.list(conversation.id);
      expect(items.data.map((item) => item.type === 'message' && item.role)).to.deep.equal(['user']);
    });

    it("through OpenAI's Responses API, a stream whose server fails before any text announces no output item: response.failed follows response.in_progress", async () => {
      fake.fallback = { kind: 'fail', status: 500 };
      const client = await responsesClient(service, uid('u'));
      const runner = client.responses.stream({ model: 'm', input: 'are you there?' });
      const seen: StreamEvent[] = [];
      runner.on('event', (event) => seen.push(event));
      const final = await runner.finalResponse();
      expect(expectWholeStream(seen, 'response.failed')).to.equal('');
      expect(final).to.deep.include({ status: 'failed', output: [], error: { code: 'server_error', message: 'the language model answered 500 Internal Server Error' } });
      expect((await client.responses.retrieve(final.id)).output).to.deep.equal([]);
      const replay = await new EventReader(await client.responses.retrieve(final.id, { stream: true })).rest();
      expect(replay.map((e) => [e.type, e.sequence_number])).to.deep.equal([['response.created', 0], ['response.in_progress', 1], ['response.failed', 2]]);
    });

    it('504 when the server does not answer within LLM_TIMEOUT_MS', async () => {
      fake.fallback = { kind: 'hang' };
      const started = Date.now();
      const res = await service.post('/v1/chat', { text: 'hello?', user_id: uid('u') });
      expect(res.status).to.equal(504);
      expect(res.json).to.deep.equal({ detail: 'the language model did not answer within 500 ms', status: 'error' });
      expect(Date.now() - started).to.be.below(1500);
    });
  });

  describe('POST /v1/chat/stream', () => {
    it('streams the reply from the server, with persona and history in its request', async () => {
      const userId = uid('u');
      const conversationId = uid('c');
      await service.post('/v1/chat', { text: 'first', user_id: userId, conversation_id: conversationId });
      const { events } = await stream({ text: 'second', user_id: userId, conversation_id: conversationId });
      expect(events.map((e) => e.event)).to.deep.equal(['start', 'delta', 'delta', 'delta', 'delta', 'delta', 'delta', 'done']);
      const done = events.at(-1)!.json;
      expect(deltas(events)).to.equal(done.response).and.equal('You said: second. Tell me more!');
      const sent = fake.requests.at(-1)!.body;
      expect(sent).to.deep.include({ model: FAKE_MODEL, stream: true, stream_options: { include_usage: true } });
      expect(sent.messages.map((m: { role: string }) => m.role)).to.deep.equal(['system', 'user', 'assistant', 'user']);
      expect(sent.messages[0].content).to.equal(systemPromptFor(persona));
      const reply = (await load(userId, conversationId)).at(-1);
      expect(reply).to.include({ message_id: done.message_id, text: done.response });
      expect(reply.metadata).to.deep.equal({ model: FAKE_MODEL, finish_reason: 'stop', usage: { prompt_tokens: 11, completion_tokens: 6, total_tokens: 17 } });
    });

    it('with STREAM_ON_DISCONNECT=cancel, a client closing mid-reply aborts the upstream call within a second and stores the partial reply as cancelled', async () => {
      const cancelling = await startTestService({ ...environment(), STREAM_ON_DISCONNECT: 'cancel' });
      after(() => cancelling.stop());
      const load = async (userId: string, conversationId: string): Promise<Stored[]> =>
        (await cancelling.post('/api/chat/loadMessages', { user_id: userId, conversation_id: conversationId })).json.messages;
      fake.fallback = { kind: 'stall', pieces: 2 };
      const controller = new AbortController();
      const body = { text: 'talk slowly', user_id: uid('u'), conversation_id: uid('c') };
      const opened = await openStream(`${cancelling.url}/v1/chat/stream`, body, { signal: controller.signal });
      const seen: StreamedEvent[] = [];
      for await (const event of opened.events) {
        seen.push(event);
        if (seen.filter((e) => e.event === 'delta').length === 2) break;
      }
      const closedAt = Date.now();
      controller.abort();
      const upstreamClosedAt = await fake.requests[0]!.closed;
      expect(upstreamClosedAt - closedAt).to.be.below(1000);
      const messages = await eventually(async () => {
        const stored = await load(body.user_id, body.conversation_id);
        expect(stored).to.have.length(2);
        return stored;
      });
      expect(messages[1]).to.deep.include({ role: 'assistant', text: 'You said:', message_id: seen[0]!.json.message_id });
      expect(messages[1].metadata).to.deep.equal({ model: FAKE_MODEL, finish_reason: 'cancelled' });
    });

    it('an upstream failure mid-reply ends with an error event, and the partial reply is stored as error', async () => {
      fake.fallback = { kind: 'cut', pieces: 3 };
      const body = { text: 'go on', user_id: uid('u'), conversation_id: uid('c') };
      const { status, events } = await stream(body);
      expect(status).to.equal(200);
      expect(events.map((e) => e.event)).to.deep.equal(['start', 'delta', 'delta', 'delta', 'error']);
      expect(events.at(-1)!.json).to.deep.equal({ detail: `the connection to the language model at ${new URL(fake.baseUrl).host} broke off`, status: 'error' });
      const messages = await load(body.user_id, body.conversation_id);
      expect(messages[1]).to.deep.include({ role: 'assistant', text: 'You said: go' });
      expect(messages[1].metadata).to.deep.equal({ model: FAKE_MODEL, finish_reason: 'error', error: events.at(-1)!.json.detail });
    });

    it('an upstream error before any text: status 200 (the stream had started), then an error event; only the user message is stored', async () => {
      fake.fallback = { kind: 'fail', status: 500 };
      const body = { text: 'hi', user_id: uid('u'), conversation_id: uid('c') };
      const { status, events } = await stream(body);
      expect(status).to.equal(200);
      expect(events.map((e) => e.event)).to.deep.equal(['start', 'error']);
      expect(events[1]!.json).to.deep.equal({ detail: 'the language model answered 500 Internal Server Error', status: 'error' });
      expect((await load(body.user_id, body.conversation_id)).map((m) => m.role)).to.deep.equal(['user']);
    });

    it('an upstream that does not answer in time: an error event naming the time-out', async () => {
      fake.fallback = { kind: 'hang' };
      const { events } = await stream({ text: 'hi', user_id: uid('u') });
      expect(events.map((e) => e.event)).to.deep.equal(['start', 'error']);
      expect(events[1]!.json).to.deep.equal({ detail: 'the language model did not answer within 500 ms', status: 'error' });
    });
  });

  describe('titles by the model (TITLE_MODE=model, the default with a model)', () => {
    it("one short extra call names the conversation with its first reply; the stream's title event carries it", async () => {
      fake.reset();
      const { TITLE_MODE: _, ...withModelTitles } = environment();
      const titled = await startTestService(withModelTitles);
      try {
        const user = uid('u');
        const { events } = await readStream(`${titled.url}/v1/chat/stream`, { text: 'Plan a trip to Rome', user_id: user });
        const title = events.find((e) => e.event === 'title')!.json;
        const asked = fake.requests.find((r) => r.body.messages?.[0]?.content?.startsWith('Name the conversation'));
        expect(asked, 'the title request').to.not.equal(undefined);
        expect(asked!.body.messages.at(-1)).to.deep.equal({ role: 'user', content: 'Plan a trip to Rome' });
        expect(title).to.deep.include({ title_source: 'generated' });
        expect(title.title.split(' ').length).to.be.at.most(8);
        const shown = await titled.call('GET', `/api/chat/conversations/${title.conversation_id}?user_id=${user}`);
        expect(shown.json.conversation).to.include({ title: title.title, title_source: 'generated' });
      } finally {
        await titled.stop();
      }
    });

    it("a conversation begun through OpenAI's Responses API is named the same way, once: later turns ask for no title", async () => {
      fake.reset();
      const { TITLE_MODE: _, ...withModelTitles } = environment();
      const titled = await startTestService(withModelTitles);
      try {
        const user = uid('u');
        const client = await responsesClient(titled, user);
        const first = await client.responses.create({ model: 'm', input: 'Plan a trip to Rome' });
        await client.responses.create({ model: 'm', input: 'What about food?', previous_response_id: first.id });
        await client.responses.create({ model: 'm', input: 'And museums?', conversation: first.conversation!.id });
        const asked = fake.requests.filter((r) => r.body.messages?.[0]?.content?.startsWith('Name the conversation')).map((r) => r.body.messages.at(-1).content);
        expect(asked).to.deep.equal(['Plan a trip to Rome']);
        const shown = await eventually(async () => {
          const { json } = await titled.call('GET', `/api/chat/conversations/${first.conversation!.id}?user_id=${user}`);
          expect(json.conversation.title_source).to.equal('generated');
          return json.conversation;
        });
        expect(shown.title.split(' ').length).to.be.at.most(8);
      } finally {
        await titled.stop();
      }
    });
  });
});

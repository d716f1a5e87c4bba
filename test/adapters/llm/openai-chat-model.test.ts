import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatChunk, ChatRequest } from '../../../src/application/ports/chat-model.js';
import { systemPromptFor } from '../../../src/domain/persona.js';
import { OpenAiChatModel, type OpenAiChatModelOptions } from '../../../src/adapters/llm/openai/openai-chat-model.js';
import { ChatModelFailedError, ChatModelTimedOutError } from '../../../src/domain/errors.js';
import type { Persona } from '../../../src/domain/persona.js';
import { FAKE_MODEL, startFakeOpenAiServer, type FakeOpenAiServer } from '../../support/fake-openai-server.js';
import { freePort } from '../../support/free-port.js';

const persona: Persona = {
  name: 'Ada',
  description: 'A warm, curious assistant.',
  traits: { openness: 0.8, conscientiousness: 0.7, extraversion: 0.6, agreeableness: 0.9, neuroticism: 0.2 },
  descriptors: ['curious'],
  speakingStyle: 'Short sentences.',
  voice: null,
};
const request: ChatRequest = {
  persona,
  history: [
    { role: 'user', text: 'first' },
    { role: 'assistant', text: 'first answer' },
  ],
  text: 'second',
};
const SECRET = 'sk-test-5ecret-do-not-leak';

async function collect(stream: AsyncIterable<ChatChunk>) {
  const chunks: ChatChunk[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk);
    return { chunks, error: null as unknown };
  } catch (error) {
    return { chunks, error };
  }
}

const text = (chunks: ChatChunk[]) => chunks.map((c) => (c.type === 'delta' ? c.text : '')).join('');

describe('OpenAiChatModel', () => {
  let fake: FakeOpenAiServer;
  before(async () => {
    fake = await startFakeOpenAiServer();
  });
  after(() => fake.stop());
  beforeEach(() => fake.reset());

  const model = (options: Partial<OpenAiChatModelOptions> = {}) =>
    new OpenAiChatModel({ model: FAKE_MODEL, baseUrl: fake.baseUrl, apiKey: SECRET, timeoutMs: 2000, maxRetries: 0, ...options });

  it("sends a request's instructions after the persona's prompt, its temperature, and its own lower token limit", async () => {
    await model({ maxTokens: 500 }).complete({ ...request, instructions: 'Answer in French.', temperature: 0.3, maxOutputTokens: 40 });
    const sent = fake.requests[0]!;
    expect(sent.body).to.deep.include({ max_tokens: 40, temperature: 0.3 });
    expect(sent.body.messages[0]).to.deep.equal({ role: 'system', content: `${systemPromptFor(persona)}\n\nAnswer in French.` });
    await collect(model({ maxTokens: 30 }).stream({ ...request, maxOutputTokens: 40 }));
    expect(fake.requests[1]!.body).to.deep.include({ max_tokens: 30 });
    expect(fake.requests[1]!.body).to.not.have.property('temperature');
  });

  it('sends the persona as the system message, then the history, then the new message', async () => {
    const reply = await model({ maxTokens: 77 }).complete(request);
    const sent = fake.requests[0]!;
    expect(sent.headers.authorization).to.equal(`Bearer ${SECRET}`);
    expect(sent.body).to.deep.include({ model: FAKE_MODEL, max_tokens: 77, stream: false });
    expect(sent.body.messages).to.deep.equal([
      { role: 'system', content: systemPromptFor(persona) },
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'second' },
    ]);
    expect(reply).to.deep.equal({
      text: 'You said: second. Tell me more!',
      finishReason: 'stop',
      model: FAKE_MODEL,
      usage: { promptTokens: 11, completionTokens: 6, totalTokens: 17 },
    });
  });

  it('streams with usage requested, and reports it with the finish', async () => {
    const { chunks, error } = await collect(model().stream(request));
    expect(error).to.equal(null);
    expect(fake.requests[0]!.body).to.deep.include({ stream: true, stream_options: { include_usage: true } });
    expect(text(chunks)).to.equal('You said: second. Tell me more!');
    expect(chunks.at(-1)).to.deep.equal({ type: 'finish', finishReason: 'stop', model: FAKE_MODEL, usage: { promptTokens: 11, completionTokens: 6, totalTokens: 17 } });
  });

  it('passes on why the model stopped, e.g. "length"', async () => {
    fake.fallback = { kind: 'reply', text: 'cut short', finishReason: 'length' };
    expect((await model().complete(request)).finishReason).to.equal('length');
    expect((await collect(model().stream(request))).chunks.at(-1)).to.include({ finishReason: 'length' });
  });

  it('replaces NUL and lone surrogates in a reply with U+FFFD, plain and streamed (no store keeps them)', async () => {
    fake.fallback = { kind: 'reply', text: 'nul\u0000 here, \ud800 lone, 😀 pair' };
    const expected = 'nul\uFFFD here, \uFFFD lone, 😀 pair';
    expect((await model().complete(request)).text).to.equal(expected);
    expect(text((await collect(model().stream(request))).chunks)).to.equal(expected);
  });

  it('sends a placeholder key when none is configured (local servers need none)', async () => {
    await model({ apiKey: undefined }).complete(request);
    expect(fake.requests[0]!.headers.authorization).to.match(/^Bearer \S+$/);
  });

  it('an upstream error status is a ChatModelFailedError naming the status, never the key', async () => {
    fake.fallback = { kind: 'fail', status: 401, code: 'invalid_api_key', message: `Incorrect API key provided: ${SECRET}` };
    for (const call of [() => model().complete(request), async () => { throw (await collect(model().stream(request))).error; }]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ChatModelFailedError);
      expect((error as Error).message).to.equal('the language model answered 401 Unauthorized (invalid_api_key)');
    }
  });

  it('an unreachable server is a ChatModelFailedError naming its host', async () => {
    const port = await freePort();
    const error = await model({ baseUrl: `http://127.0.0.1:${port}/v1` }).complete(request).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ChatModelFailedError);
    expect((error as Error).message).to.equal(`could not reach the language model at 127.0.0.1:${port}`);
  });

  it('a server that redirects is a ChatModelFailedError saying so: a redirect is not followed (nor the request cloned to follow one)', async () => {
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(307, { location: `${fake.baseUrl}/chat/completions` }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const call of [(m: OpenAiChatModel) => m.complete(request), async (m: OpenAiChatModel) => { throw (await collect(m.stream(request))).error; }]) {
        const error = await call(model({ baseUrl: `http://127.0.0.1:${port}/v1` })).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(ChatModelFailedError);
        expect((error as Error).message).to.equal(`the language model at 127.0.0.1:${port} answered with a redirect: set its base URL to where it leads`);
      }
      expect(fake.requests, 'the redirect was not followed').to.have.length(0);
    } finally {
      server.close();
    }
  });

  it('a server that never answers is a ChatModelTimedOutError after the timeout, plain or streamed', async () => {
    fake.fallback = { kind: 'hang' };
    for (const call of [() => model({ timeoutMs: 200 }).complete(request), async () => { throw (await collect(model({ timeoutMs: 200 }).stream(request))).error; }]) {
      const started = Date.now();
      const error = await call().catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ChatModelTimedOutError);
      expect((error as Error).message).to.equal('the language model did not answer within 200 ms');
      expect(Date.now() - started).to.be.within(150, 1500);
    }
  });

  it('a stream that stalls longer than the timeout mid-reply is a ChatModelTimedOutError, after the pieces it sent', async () => {
    fake.fallback = { kind: 'stall', pieces: 2 };
    const { chunks, error } = await collect(model({ timeoutMs: 200 }).stream(request));
    expect(error).to.be.instanceOf(ChatModelTimedOutError);
    expect(text(chunks)).to.equal('You said:');
  });

  it('a stream cut off mid-reply is a ChatModelFailedError, and is not retried', async () => {
    fake.fallback = { kind: 'cut', pieces: 2 };
    const { chunks, error } = await collect(model({ maxRetries: 2 }).stream(request));
    expect(error).to.be.instanceOf(ChatModelFailedError);
    expect((error as Error).message).to.include('broke off');
    expect(text(chunks)).to.equal('You said:');
    expect(fake.requests).to.have.length(1);
  });

  it('an error event mid-stream is a ChatModelFailedError', async () => {
    fake.fallback = { kind: 'error-event', pieces: 1 };
    const { chunks, error } = await collect(model().stream(request));
    expect(error).to.be.instanceOf(ChatModelFailedError);
    expect((error as Error).message).to.equal('the language model reported an error while answering (overloaded)');
    expect(text(chunks)).to.equal('You');
  });

  it("retries with the SDK's own bounded retries before a reply starts", async () => {
    fake.queue = [{ kind: 'fail', status: 503, headers: { 'retry-after-ms': '10' } }];
    expect((await model({ maxRetries: 1 }).complete(request)).text).to.include('second');
    fake.queue = [{ kind: 'fail', status: 503, headers: { 'retry-after-ms': '10' } }];
    expect(text((await collect(model({ maxRetries: 1 }).stream(request))).chunks)).to.include('second');
    expect(fake.requests).to.have.length(4);
    fake.fallback = { kind: 'fail', status: 500, headers: { 'retry-after-ms': '10' } };
    expect(await model({ maxRetries: 2 }).complete(request).catch((e: unknown) => e)).to.be.instanceOf(ChatModelFailedError);
    expect(fake.requests).to.have.length(7);
  });

  it("takes only whole counts of tokens from the server: a count negative, fractional, absurd, a string or missing a part is none", async () => {
    const finishOf = async () => (await collect(model().stream(request))).chunks.at(-1);
    for (const bad of [
      { prompt_tokens: -1000, completion_tokens: -500, total_tokens: -1500 },
      { prompt_tokens: 'abc', completion_tokens: null, total_tokens: 5 },
      { total_tokens: 9 },
      { prompt_tokens: 12.5, completion_tokens: 3, total_tokens: 15.5 },
      { prompt_tokens: 1e20, completion_tokens: 3, total_tokens: 1e20 },
      'lots',
    ]) {
      fake.queue = [{ kind: 'reply', usage: bad }, { kind: 'reply', usage: bad }];
      expect((await model().complete(request)).usage, JSON.stringify(bad)).to.equal(null);
      expect(await finishOf(), JSON.stringify(bad)).to.deep.include({ type: 'finish', usage: null });
    }
    fake.queue = [{ kind: 'reply', usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 4 } }];
    expect((await model().complete(request)).usage).to.deep.equal({ promptTokens: 7, completionTokens: 3, totalTokens: 10 });
  });

  it("keeps the server's model name and finish reason only as printable, bounded words", async () => {
    fake.queue = [{ kind: 'reply', model: 'bad\u0000model\u001b', finishReason: 'st\u0000op' }];
    const finish = (await collect(model().stream(request))).chunks.at(-1);
    expect(finish).to.deep.include({ type: 'finish', model: 'badmodel', finishReason: 'stop' });
    fake.queue = [{ kind: 'reply', model: 42, finishReason: 'x'.repeat(5000) }];
    expect(await model().complete(request)).to.deep.include({ model: FAKE_MODEL, finishReason: 'stop' });
    fake.queue = [{ kind: 'reply', finishReason: 'Content_Filter' }];
    expect((await model().complete(request)).finishReason).to.equal('content_filter');
  });

  it('an answer that is not a chat completion (null, content that is not text) is a ChatModelFailedError saying so', async () => {
    for (const data of [['null'], [JSON.stringify({ choices: [{ index: 0, delta: { content: 12345 }, finish_reason: null }] })]]) {
      fake.queue = [{ kind: 'raw', data }];
      const { error } = await collect(model().stream(request));
      expect(error, data[0]).to.be.instanceOf(ChatModelFailedError);
      expect((error as Error).message).to.equal('the language model sent an answer that is not a chat completion');
    }
  });

  it('a stream whose server holds the connection open after [DONE] finishes all the same, at once', async () => {
    fake.queue = [{ kind: 'reply', text: 'All done.', holdOpen: true }];
    const started = Date.now();
    const { chunks, error } = await collect(model({ timeoutMs: 5000 }).stream(request));
    expect(error).to.equal(null);
    expect(text(chunks)).to.equal('All done.');
    expect(chunks.at(-1)).to.deep.include({ type: 'finish', finishReason: 'stop' });
    expect(Date.now() - started).to.be.below(2000);
  });

  it('keep-alive comments are no sign of life: a model that sends only them times out', async () => {
    fake.queue = [{ kind: 'comments', pieces: 2, everyMs: 50 }];
    const { chunks, error } = await collect(model({ timeoutMs: 300 }).stream(request));
    expect(error).to.be.instanceOf(ChatModelTimedOutError);
    expect(text(chunks)).to.equal('You said:');
  });

  it('a Retry-After longer than the call may last is not waited for: the answer is the error, at once, plain or streamed', async () => {
    for (const headers of [{ 'retry-after': '86400' }, { 'retry-after-ms': '30000' }] as Record<string, string>[]) {
      fake.queue = [{ kind: 'fail', status: 429, headers }, { kind: 'fail', status: 429, headers }];
      const started = Date.now();
      const plain = await model({ maxRetries: 2, timeoutMs: 2000 }).complete(request).catch((e: unknown) => e);
      const streamed = (await collect(model({ maxRetries: 2, timeoutMs: 2000 }).stream(request))).error;
      for (const error of [plain, streamed]) {
        expect(error).to.be.instanceOf(ChatModelFailedError);
        expect((error as Error).message).to.include('429');
      }
      expect(Date.now() - started).to.be.below(1500);
    }
    expect(fake.requests).to.have.length(4);
  });

  it('a stop during a retry the server asked for ends the call at once (the SDK sleeps without looking at its signal)', async () => {
    fake.queue = [{ kind: 'fail', status: 503, headers: { 'retry-after': '1.5' } }];
    const controller = new AbortController();
    const pending = collect(model({ maxRetries: 1, timeoutMs: 5000 }).stream(request, controller.signal));
    while (fake.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const stoppedAt = Date.now();
    controller.abort(new Error('stopped'));
    const { error } = await pending;
    expect((error as Error).message).to.equal('stopped');
    expect(Date.now() - stoppedAt).to.be.below(500);
  });

  it('aborting mid-stream closes the upstream connection at once', async () => {
    fake.fallback = { kind: 'stall', pieces: 1 };
    const controller = new AbortController();
    const stream = model().stream(request, controller.signal);
    const first = await stream[Symbol.asyncIterator]().next();
    expect(first.value).to.deep.equal({ type: 'delta', text: 'You' });
    const abortedAt = Date.now();
    controller.abort();
    expect((await fake.requests[0]!.closed) - abortedAt).to.be.below(1000);
  });
});


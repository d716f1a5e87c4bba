import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { ChatChunk, ChatModel, ChatRequest } from '../../src/application/ports/chat-model.js';
import { uid } from '../support/ids.js';
import { startTestService, type TestService } from '../support/service.js';
import { openStream, readStream, type StreamedEvent } from '../support/sse-client.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Streams `pieces` after `firstDelayMs`, or does nothing until aborted when `hang` is set. */
class SlowModel implements ChatModel {
  readonly name = 'slow';
  calls = 0;
  abortedAt = 0;
  constructor(
    private readonly firstDelayMs: number,
    private readonly pieces = ['Hello ', 'there.'],
  ) {}
  async complete(): Promise<never> {
    throw new Error('not used');
  }
  async *stream(_request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatChunk> {
    this.calls++;
    await sleep(this.firstDelayMs, undefined, { signal }).catch((error: unknown) => {
      this.abortedAt = Date.now();
      throw error;
    });
    for (const text of this.pieces) yield { type: 'delta', text };
    yield { type: 'finish', finishReason: 'stop', model: 'slow-1', usage: null };
  }
}

const names = (events: StreamedEvent[]) => events.map((e) => e.event);

describe('POST /v1/chat/stream (offline assistant)', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service?.stop());

  const url = () => `${service.url}/v1/chat/stream`;
  const load = (userId: string, conversationId: string) =>
    service.post('/api/chat/loadMessages', { user_id: userId, conversation_id: conversationId });

  it('sends start, deltas, then done (a first turn names its conversation just before); the deltas concatenate to the response', async () => {
    const { status, headers, events } = await readStream(url(), { text: 'hello', user_id: uid('u') }, { 'X-Request-Id': 'stream-req-1' });
    expect(status).to.equal(200);
    expect(headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
    expect(names(events)[0]).to.equal('start');
    expect(names(events).at(-1)).to.equal('done');
    expect(names(events).at(-2)).to.equal('title');
    expect(events.at(-2)!.json).to.deep.equal({ conversation_id: events[0]!.json.conversation_id, title: 'hello', title_source: 'first_message' });
    expect(names(events).slice(1, -2)).to.satisfy((middle: string[]) => middle.length > 1 && middle.every((n) => n === 'delta'));
    const [start, done] = [events[0]!.json, events.at(-1)!.json];
    expect(Object.keys(start).sort()).to.deep.equal(['conversation_id', 'message_id', 'user_message_id']);
    expect(start.message_id).to.match(UUID_V7);
    expect(done).to.deep.equal({ ...start, response: done.response, status: 'ok', finish_reason: 'stop' });
    expect(events.filter((e) => e.event === 'delta').map((e) => e.json.text).join('')).to.equal(done.response);
  });

  it('keeps the headers earlier middleware set, and tells proxies not to buffer', async () => {
    const { headers } = await readStream(url(), { text: 'hi', user_id: uid('u') }, { 'X-Request-Id': 'stream-req-2' });
    expect(headers.get('x-request-id')).to.equal('stream-req-2');
    expect(headers.get('x-content-type-options')).to.equal('nosniff');
    expect(headers.get('x-frame-options')).to.equal('DENY');
    expect(headers.get('cache-control')).to.include('no-cache');
    expect(headers.get('x-accel-buffering')).to.equal('no');
    expect(headers.get('content-length')).to.equal(null);
  });

  it('writes LF-terminated lines, each data line one complete JSON object', async () => {
    const raw = (await readStream(url(), { text: 'Tell me "something"\nwith lines', user_id: uid('u') })).raw();
    expect(raw).to.not.include('\r');
    expect(raw.endsWith('\n\n')).to.equal(true);
    const dataLines = raw.split('\n').filter((line) => line.startsWith('data:'));
    expect(dataLines.length).to.be.greaterThan(2);
    for (const line of dataLines) expect(JSON.parse(line.slice('data: '.length))).to.be.an('object');
  });

  it('stores the reply before done is sent', async () => {
    const userId = uid('u');
    const opened = await openStream(url(), { text: 'hello', user_id: userId });
    let start: StreamedEvent['json'];
    for await (const event of opened.events) {
      if (event.event === 'start') start = event.json;
      if (event.event !== 'done') continue;
      // Still inside the stream: the next read would be its end.
      const stored = await load(userId, start.conversation_id);
      const reply = stored.json.messages.at(-1);
      expect(reply).to.include({ message_id: event.json.message_id, role: 'assistant', text: event.json.response });
      expect(reply.metadata).to.include({ model: 'offline-eliza', finish_reason: 'stop' });
      expect(reply.metadata.usage).to.have.keys('prompt_tokens', 'completion_tokens', 'total_tokens');
      expect(stored.json.messages[0]).to.include({ message_id: start.user_message_id, role: 'user', text: 'hello' });
      return;
    }
    expect.fail('no done event');
  });

  it('replays an answered message_id without streaming a new reply', async () => {
    const body = { text: 'once', user_id: uid('u'), conversation_id: uid('c'), message_id: uid('m') };
    const first = await readStream(url(), body);
    const again = await readStream(url(), body);
    expect(names(again.events)).to.deep.equal(['start', 'delta', 'done']);
    expect(again.events.at(-1)!.json).to.deep.equal(first.events.at(-1)!.json);
    expect((await load(body.user_id, body.conversation_id)).json.messages).to.have.length(2);
  });

  describe('errors before the stream starts are ordinary JSON errors', () => {
    for (const [name, body, detail] of [
      ['missing text', { user_id: 'u' }, 'text: is required'],
      ['blank text', { text: '  ', user_id: 'u' }, 'text: must be a non-empty string'],
      ['missing user_id', { text: 'hi' }, 'user_id: is required'],
      ['an array body', [{ text: 'hi', user_id: 'u' }], 'body: must be a JSON object'],
    ] as const) {
      it(`400 for ${name}`, async () => {
        const res = await service.post('/v1/chat/stream', body);
        expect(res.status).to.equal(400);
        expect(res.headers.get('content-type')).to.match(/^application\/json/);
        expect(res.json.status).to.equal('error');
        expect(res.json.detail).to.satisfy((d: string) => d.startsWith(detail), res.json.detail);
      });
    }

    it('400 for an unknown X-Stream-Protocol', async () => {
      const res = await service.call('POST', '/v1/chat/stream', { body: { text: 'hi', user_id: 'u' }, headers: { 'X-Stream-Protocol': 'websocket' } });
      expect(res.status).to.equal(400);
      expect(res.json.detail).to.equal('X-Stream-Protocol: must be one of events, ui-message');
    });

    it('400 for an unknown X-Stream-Protocol when resuming, as when starting', async () => {
      const body = { text: 'hi', user_id: uid('u') };
      const { events } = await readStream(url(), body);
      const messageId = String(events[0]!.json.message_id);
      const path = `/v1/chat/stream/${messageId}?user_id=${encodeURIComponent(body.user_id)}`;
      const res = await service.call('GET', path, { headers: { 'X-Stream-Protocol': 'WebSocket' } });
      expect(res.status).to.equal(400);
      expect(res.json.detail).to.equal('X-Stream-Protocol: must be one of events, ui-message');
    });

    it("404 for another user's conversation, 409 for a reused message_id", async () => {
      const body = { text: 'mine', user_id: uid('owner'), conversation_id: uid('c'), message_id: uid('m') };
      await readStream(url(), body);
      const intruder = await service.post('/v1/chat/stream', { ...body, user_id: uid('other'), message_id: undefined });
      expect(intruder.status).to.equal(404);
      const reused = await service.post('/v1/chat/stream', { ...body, text: 'changed' });
      expect(reused.status).to.equal(409);
      expect(reused.json.status).to.equal('error');
      // Another user reusing the id (with no conversation named) learns only that it is taken.
      const taken = await service.post('/v1/chat/stream', { text: 'mine', user_id: uid('other'), message_id: body.message_id });
      expect(taken.status).to.equal(409);
      expect(taken.json.detail).to.equal(`message_id ${JSON.stringify(body.message_id)} is already taken; choose another`);
    });

    it('405 for GET', async () => {
      expect((await service.call('GET', '/v1/chat/stream')).status).to.equal(405);
    });
  });
});

describe('POST /v1/chat/stream cancelled mid-reply with STREAM_ON_DISCONNECT=cancel (offline assistant)', () => {
  it('stores the words said so far as a cancelled reply', async () => {
    const service = await startTestService({ OFFLINE_STREAM_DELAY_MS: '100', STREAM_ON_DISCONNECT: 'cancel' });
    try {
      const controller = new AbortController();
      const body = { text: 'What can you do?', user_id: uid('u'), conversation_id: uid('c') };
      const opened = await openStream(`${service.url}/v1/chat/stream`, body, { signal: controller.signal });
      let said = '';
      for await (const event of opened.events) {
        if (event.event === 'delta') said += event.json.text;
        if (said.split(' ').length > 2) break;
      }
      controller.abort();
      await sleep(150);
      const stored = await service.post('/api/chat/loadMessages', { user_id: body.user_id, conversation_id: body.conversation_id });
      const reply = stored.json.messages[1];
      expect(reply).to.include({ role: 'assistant', text: said });
      expect(reply.metadata).to.deep.equal({ model: 'offline-eliza', finish_reason: 'cancelled' });
    } finally {
      await service.stop();
    }
  });
});

describe('POST /v1/chat/stream while the model is slow', () => {
  it('sends ": ping" comments while waiting', async () => {
    const model = new SlowModel(300);
    const service = await startTestService({ SSE_PING_INTERVAL_MS: '50' }, { chatModel: model });
    try {
      const { events, comments } = await readStream(`${service.url}/v1/chat/stream`, { text: 'hi', user_id: uid('u') });
      expect(comments.filter((c) => c === 'ping').length).to.be.within(3, 8);
      expect(names(events)).to.deep.equal(['start', 'delta', 'delta', 'title', 'done']);
    } finally {
      await service.stop();
    }
  });

  it('with STREAM_ON_DISCONNECT=cancel, a client leaving before any text aborts the model and stores no empty reply', async () => {
    const model = new SlowModel(60_000);
    const service = await startTestService({ STREAM_ON_DISCONNECT: 'cancel' }, { chatModel: model });
    try {
      const controller = new AbortController();
      const body = { text: 'hi', user_id: uid('u'), conversation_id: uid('c') };
      const opened = await openStream(`${service.url}/v1/chat/stream`, body, { signal: controller.signal });
      expect((await opened.events.next()).value.event).to.equal('start');
      const closedAt = Date.now();
      controller.abort();
      await sleep(100);
      expect(model.abortedAt - closedAt).to.be.within(0, 100);
      const stored = await service.post('/api/chat/loadMessages', { user_id: body.user_id, conversation_id: body.conversation_id });
      expect(stored.json.messages.map((m: { role: string }) => m.role)).to.deep.equal(['user']);
    } finally {
      await service.stop();
    }
  });
});

import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** What the fake does with the next request(s). */
export type FakeBehaviour =
  /** Answer (plain JSON, or SSE chunks when `stream: true`); the default. */
  | {
      kind: 'reply';
      text?: string;
      finishReason?: unknown;
      /** The usage it reports instead of its own count (any value: a server's bad counts). */
      usage?: unknown;
      /** The model name it gives instead of FAKE_MODEL. */
      model?: unknown;
      /** After `[DONE]`, the connection is held open (a server that does not end its body). */
      holdOpen?: boolean;
    }
  /** Stream `pieces` content chunks, then only SSE comments (keep-alives) every `everyMs`, never the rest. */
  | { kind: 'comments'; pieces: number; everyMs: number }
  /** Stream these SSE data payloads as they are (each a `data:` line), then `[DONE]`. */
  | { kind: 'raw'; data: string[] }
  /** Answer with this HTTP status and an OpenAI-style error body. */
  | { kind: 'fail'; status: number; code?: string; message?: string; headers?: Record<string, string>; delayMs?: number }
  /** Accept the request and never answer. */
  | { kind: 'hang' }
  /** Stream `pieces` content chunks, then destroy the connection (no finish, no [DONE]). */
  | { kind: 'cut'; pieces: number }
  /** Stream `pieces` content chunks, then wait forever (a model that is slow to go on). */
  | { kind: 'stall'; pieces: number }
  /** Stream `pieces` content chunks, then an SSE `{"error": ...}` object, as OpenAI does mid-stream. */
  | { kind: 'error-event'; pieces: number };

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** Resolves with the time (ms since epoch) the connection of this request closed. */
  closed: Promise<number>;
}

export interface FakeOpenAiServer {
  /** Base URL for the SDK, ending in /v1. */
  baseUrl: string;
  requests: ReceivedRequest[];
  /** Behaviours for the next requests, in order; when empty, `fallback` applies. */
  queue: FakeBehaviour[];
  fallback: FakeBehaviour;
  /** Pause between streamed chunks. */
  chunkDelayMs: number;
  reset(): void;
  stop(): Promise<void>;
}

export const FAKE_MODEL = 'fake-model-1';

/** The default answer: it repeats the user's last message, so tests can tell replies apart. */
export const fakeAnswerTo = (body: { messages?: { role: string; content: string }[] }): string =>
  `You said: ${body.messages?.filter((m) => m.role === 'user').at(-1)?.content ?? ''}. Tell me more!`;

/** Splits like a tokenizer might: words with their spaces, so the pieces concatenate exactly. */
const piecesOf = (text: string): string[] => text.match(/\s*\S+/gu) ?? [text];

/**
 * A local OpenAI-compatible server speaking `/v1/chat/completions` in OpenAI's own wire format:
 * plain JSON, or `stream: true` SSE chunks ending in `data: [DONE]`, with a final usage chunk
 * when `stream_options.include_usage` is set. It records every request it receives.
 */
export async function startFakeOpenAiServer(port = 0): Promise<FakeOpenAiServer> {
  const fake: FakeOpenAiServer = {
    baseUrl: '',
    requests: [],
    queue: [],
    fallback: { kind: 'reply' },
    chunkDelayMs: 0,
    reset() {
      this.requests = [];
      this.queue = [];
      this.fallback = { kind: 'reply' };
      this.chunkDelayMs = 0;
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    void handle(fake, req, res).catch(() => res.destroy());
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}

async function handle(fake: FakeOpenAiServer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const closed = new Promise<number>((resolve) => res.once('close', () => resolve(Date.now())));
  let raw = '';
  for await (const part of req) raw += String(part);
  const body = raw === '' ? undefined : JSON.parse(raw);
  fake.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, closed });
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
    return json(res, 404, { error: { message: `Unknown request URL: ${req.method} ${req.url}`, type: 'invalid_request_error', param: null, code: 'unknown_url' } });
  }
  const behaviour = fake.queue.shift() ?? fake.fallback;
  if (behaviour.kind === 'hang') return;
  if (behaviour.kind === 'fail') {
    if (behaviour.delayMs) await sleep(behaviour.delayMs);
    const error = { message: behaviour.message ?? 'The server had an error while processing your request.', type: 'server_error', param: null, code: behaviour.code ?? null };
    return json(res, behaviour.status, { error }, behaviour.headers);
  }
  const text = behaviour.kind === 'reply' && behaviour.text !== undefined ? behaviour.text : fakeAnswerTo(body);
  const finishReason = behaviour.kind === 'reply' ? (behaviour.finishReason ?? 'stop') : 'stop';
  const counted = { prompt_tokens: 11, completion_tokens: piecesOf(text).length, total_tokens: 11 + piecesOf(text).length };
  const usage = behaviour.kind === 'reply' && 'usage' in behaviour ? behaviour.usage : counted;
  const model = behaviour.kind === 'reply' && 'model' in behaviour ? behaviour.model : FAKE_MODEL;
  const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
  const created = Math.floor(Date.now() / 1000);
  if (behaviour.kind === 'raw') {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    return void res.end(`${behaviour.data.map((data) => `data: ${data}\n\n`).join('')}data: [DONE]\n\n`);
  }
  if (!body.stream) {
    return json(res, 200, {
      id, object: 'chat.completion', created, model, system_fingerprint: null,
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: finishReason }],
      usage,
    });
  }
  const withUsage = body.stream_options?.include_usage === true;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: null, choices, ...(withUsage ? { usage: null } : {}), ...extra })}\n\n`;
  const delta = (content: string) => chunk([{ index: 0, delta: { content }, logprobs: null, finish_reason: null }]);
  // Each write is awaited, so a cut below comes after the pieces really left.
  const send = (data: string) => new Promise<void>((resolve) => res.write(data, () => resolve()));
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  await send(chunk([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }]));
  const pieces = piecesOf(text);
  const count = behaviour.kind === 'reply' ? pieces.length : Math.min(behaviour.pieces, pieces.length);
  for (const piece of pieces.slice(0, count)) {
    if (fake.chunkDelayMs > 0) await sleep(fake.chunkDelayMs);
    if (res.destroyed) return;
    await send(delta(piece));
  }
  if (behaviour.kind === 'cut') return void res.destroy();
  if (behaviour.kind === 'stall') return;
  if (behaviour.kind === 'comments') {
    while (!res.destroyed) {
      await sleep(behaviour.everyMs);
      if (!res.destroyed) await send(': keep-alive\n\n');
    }
    return;
  }
  if (behaviour.kind === 'error-event') {
    res.end(`data: ${JSON.stringify({ error: { message: 'The model overloaded mid-answer.', type: 'server_error', param: null, code: 'overloaded' } })}\n\n`);
    return;
  }
  res.write(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }]));
  if (withUsage) res.write(chunk([], { usage }));
  if (behaviour.kind === 'reply' && behaviour.holdOpen) return void res.write('data: [DONE]\n\n');
  res.end('data: [DONE]\n\n');
}

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

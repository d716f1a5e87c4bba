import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { documentedFetch } from './documented-responses.js';
import { openEventStream, openStream, type OpenedStream, type StreamedEvent } from './sse-client.js';

/**
 * A reply's event stream as a client holds it: the events so far, the text of its deltas, and
 * where it stands (the last SSE id). Every answer is checked against the service's /openapi.json.
 */
export class LiveStream {
  readonly events: StreamedEvent[] = [];
  private readonly controller: AbortController;

  constructor(
    readonly opened: OpenedStream,
    controller: AbortController,
  ) {
    this.controller = controller;
  }

  /** The concatenated deltas received. */
  get text(): string {
    return this.events.filter((e) => e.event === 'delta').map((e) => e.json.text as string).join('');
  }

  /** The id of the last event received: the code points of the reply this client holds. */
  get position(): number {
    return Number(this.events.at(-1)?.id ?? 0);
  }

  /** Ended with `done` or `error` (or, in the AI SDK protocol, `[DONE]`). */
  get ended(): boolean {
    const last = this.events.at(-1);
    return last?.event === 'done' || last?.event === 'error' || last?.data === '[DONE]';
  }

  /** The next event; fails when the stream ends first. */
  async next(): Promise<StreamedEvent> {
    const { value, done } = await this.opened.events.next();
    if (done) throw new Error(`the stream ended after ${JSON.stringify(this.events.map((e) => e.event))}`);
    this.events.push(value);
    return value;
  }

  /** Reads until the received text holds `text`. */
  async until(text: string): Promise<void> {
    while (!this.text.includes(text)) {
      const event = await this.next();
      if (event.event !== 'delta') throw new Error(`expected deltas up to ${JSON.stringify(text)}, got ${event.event}: ${event.data}`);
    }
  }

  /** Reads to the end of the stream; returns the last event (done or error). */
  async end(): Promise<StreamedEvent> {
    for (;;) {
      const { value, done } = await this.opened.events.next();
      if (done) break;
      this.events.push(value);
    }
    expect(this.ended, `the stream ended with ${this.events.at(-1)?.event}`).to.equal(true);
    return this.events.at(-1)!;
  }

  /** Goes away, as a client that loses its connection. */
  async leave(): Promise<void> {
    this.controller.abort();
    await this.opened.events.return(undefined).catch(() => undefined);
  }
}

export interface ResumeOptions {
  lastEventId?: string | number;
  after?: string | number;
  headers?: Record<string, string>;
}

function resumeQuery(userId: string, options: ResumeOptions): URLSearchParams {
  const query = new URLSearchParams({ user_id: userId });
  if (options.after !== undefined) query.set('after', String(options.after));
  return query;
}

function resumeHeaders(options: ResumeOptions): Record<string, string> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.lastEventId !== undefined) headers['Last-Event-ID'] = String(options.lastEventId);
  return headers;
}

/** The reply endpoints of one service, for one user. */
export function replyClient(baseUrl: string) {
  const json = async (method: string, path: string, body?: unknown) => {
    const response = await documentedFetch(baseUrl + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: response.status, json: (text === '' ? undefined : JSON.parse(text)) as any };
  };
  const live = async (opening: (signal: AbortSignal) => Promise<OpenedStream>, expectStart: boolean) => {
    const controller = new AbortController();
    const opened = await opening(controller.signal);
    const stream = new LiveStream(opened, controller);
    if (expectStart) {
      expect(opened.status, opened.raw()).to.equal(200);
      const first = await stream.next();
      expect(first.event ?? first.json?.type, 'the first event').to.equal('start');
    }
    return stream;
  };

  return {
    /** POST /v1/chat/stream, read up to its `start` event. */
    start: (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      live((signal) => openStream(`${baseUrl}/v1/chat/stream`, body, { headers, signal }), true),
    /** GET /v1/chat/stream/{message_id}, read up to its `start` event. */
    resume: (messageId: string, userId: string, options: ResumeOptions = {}) =>
      live(
        (signal) => openEventStream(`${baseUrl}/v1/chat/stream/${encodeURIComponent(messageId)}?${resumeQuery(userId, options)}`, { headers: resumeHeaders(options), signal }),
        true,
      ),
    /** GET /v1/chat/stream/{message_id} whose answer is not a stream (an error). */
    resumeAnswer: async (messageId: string, userId: string, options: ResumeOptions = {}) => {
      const response = await documentedFetch(`${baseUrl}/v1/chat/stream/${encodeURIComponent(messageId)}?${resumeQuery(userId, options)}`, { headers: resumeHeaders(options) });
      expect(response.headers.get('content-type')).to.match(/^application\/json/);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return { status: response.status, json: (await response.json()) as any };
    },
    stop: (messageId: string, userId: string) => json('POST', `/v1/chat/stream/${encodeURIComponent(messageId)}/stop`, { user_id: userId }),
    chat: (body: Record<string, unknown>) => json('POST', '/v1/chat', body),
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    messages: async (userId: string, conversationId: string): Promise<any[]> => {
      const loaded = await json('POST', '/api/chat/loadMessages', { user_id: userId, conversation_id: conversationId, limit: 500, branch: 'all' });
      expect(loaded.status).to.equal(200);
      return loaded.json.messages;
    },
  };
}

export type ReplyClient = ReturnType<typeof replyClient>;

/** Polls `probe` until it returns something other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Code points, as the contract counts positions. */
export const codePoints = (text: string): number => [...text].length;

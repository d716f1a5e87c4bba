import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { documentedFetch } from './documented-responses.js';

export interface StreamedEvent {
  event: string | undefined;
  /** The SSE `id:` of the event, when it has one. */
  id: string | undefined;
  data: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export interface OpenedStream {
  status: number;
  headers: Headers;
  /** Events as they arrive; a JSON (non-stream) answer yields none. */
  events: AsyncGenerator<StreamedEvent>;
  /** Everything received so far, byte for byte. */
  raw(): string;
  comments: string[];
  /** For a JSON answer (an error before the stream started): its parsed body, once `events` is drained. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body(): any;
}

/**
 * POSTs to a stream endpoint and parses the answer with eventsource-parser as it arrives. The
 * status and content type are checked against the service's /openapi.json.
 */
export function openStream(
  url: string,
  body: unknown,
  options: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<OpenedStream> {
  return openEventStream(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify(body),
    signal: options.signal,
  });
}

/** Any request whose answer may be an event stream (a GET resume, say), parsed as above. */
export async function openEventStream(url: string, init: RequestInit = {}): Promise<OpenedStream> {
  const response = await documentedFetch(url, init);
  let raw = '';
  const comments: string[] = [];
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => queue.push(e), onComment: (c) => comments.push(c.trim()) });
  async function* events(): AsyncGenerator<StreamedEvent> {
    const decoder = new TextDecoder();
    if (!response.body) return;
    for await (const bytes of response.body) {
      const text = decoder.decode(bytes as Uint8Array, { stream: true });
      raw += text;
      if (!response.headers.get('content-type')?.startsWith('text/event-stream')) continue;
      parser.feed(text);
      while (queue.length > 0) {
        const { event, id, data } = queue.shift()!;
        yield { event, id, data, json: data === '[DONE]' ? undefined : JSON.parse(data) };
      }
    }
  }
  return { status: response.status, headers: response.headers, events: events(), raw: () => raw, comments, body: () => JSON.parse(raw) };
}

/** Reads the whole answer. */
export async function readStream(url: string, body: unknown, headers: Record<string, string> = {}) {
  const opened = await openStream(url, body, { headers });
  const events: StreamedEvent[] = [];
  for await (const event of opened.events) events.push(event);
  return { ...opened, events };
}

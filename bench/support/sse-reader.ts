import { request, type IncomingMessage } from 'node:http';
import { createParser } from 'eventsource-parser';

export interface ReadReply {
  /** The concatenated deltas. */
  text: string;
  /** The last event's name (done or error) and data. */
  end: { event: string; data: string } | null;
  /** The reply's id, from `start`. */
  messageId: string;
}

export interface ReadOptions {
  method?: 'GET' | 'POST';
  body?: unknown;
  headers?: Record<string, string>;
  /** A slow reader: takes nothing in (the socket is paused) until this settles. */
  pausedUntil?: Promise<unknown>;
  /** Called with each delta's text when it arrives. */
  onDelta?(text: string, at: number): void;
  /** Called once `start` has arrived. */
  onStart?(messageId: string): void;
}

/**
 * Reads one reply's event stream over plain node:http, whose socket can be paused: a paused
 * reader takes nothing in, so the server sees it as a client that reads very slowly.
 */
export function readReply(url: string, options: ReadOptions = {}): Promise<ReadReply> {
  return new Promise((resolve, reject) => {
    const result: ReadReply = { text: '', end: null, messageId: '' };
    const parser = createParser({
      onEvent: (event) => {
        if (event.event === 'start') {
          result.messageId = JSON.parse(event.data).message_id;
          options.onStart?.(result.messageId);
        } else if (event.event === 'delta') {
          const text = JSON.parse(event.data).text as string;
          result.text += text;
          options.onDelta?.(text, Date.now());
        } else if (event.event === 'done' || event.event === 'error') {
          result.end = { event: event.event, data: event.data };
        }
      },
    });
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = request(url, {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
      agent: false,
    });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`${url} answered ${res.statusCode}`));
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => parser.feed(chunk));
      if (options.pausedUntil) {
        res.pause();
        void options.pausedUntil.then(() => res.resume());
      }
      res.on('end', () => resolve(result));
      res.on('error', reject);
    });
    req.end(body);
  });
}

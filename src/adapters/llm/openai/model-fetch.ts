import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { abortReason } from './upstream-call.js';

/**
 * The `fetch` the OpenAI SDK is given for the language model: the same requests and answers,
 * over `node:http` and `node:https` with keep-alive agents of their own, rather than the
 * Fetch standard's machinery (undici's fetch, web streams, a signal per request). Measured on
 * the bench's relay (1,000 streamed replies at once, the same paced model), `fetch` took 2.6
 * to 3.7 s of CPU where `node:http` took 1.6 to 1.9 s.
 *
 * What the SDK relies on is kept: a `Response` (status, headers, a body it can read), the
 * request's signal (an abort before or after the answer's head ends it with the signal's reason), a
 * failure to connect as fetch's `TypeError('fetch failed')` with its cause, and
 * `redirect: 'error'` (a redirect is such a failure, caused by `unexpected redirect`). The body
 * of an event stream is read through `bodyOf` as Node's stream, one `Buffer` per read of the
 * socket; its `Response.body` reads nothing unless somebody reads it. Any other answer (JSON, an
 * error) is read whole first. A request body other than a string or bytes goes to `fetch`.
 */
export function modelFetch(): typeof fetch {
  return (input, init = {}) => {
    const body = init.body;
    if (!(body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array)) return fetch(input, init);
    return new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const { signal } = init;
      if (signal?.aborted) return reject(abortReason(signal));
      const headers = Object.fromEntries(new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined)));
      if (body !== undefined && body !== null) headers['content-length'] = String(Buffer.byteLength(body));
      const secure = url.protocol === 'https:';
      const request = (secure ? https : http).request(url, { method: init.method ?? 'GET', headers, agent: secure ? AGENTS.https : AGENTS.http });
      let answer: IncomingMessage | undefined;
      const onAbort = () => {
        const reason = abortReason(signal!) as Error;
        if (answer) answer.destroy(reason);
        request.destroy(reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const release = () => signal?.removeEventListener('abort', onAbort);
      request.on('error', (error) => {
        release();
        reject(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause: error }));
      });
      request.on('response', (res) => {
        answer = res;
        res.once('close', release);
        if (res.statusCode! >= 300 && res.statusCode! < 400 && res.statusCode !== 304 && init.redirect === 'error') {
          res.destroy();
          return reject(new TypeError('fetch failed', { cause: new Error('unexpected redirect') }));
        }
        const source = decoded(res);
        // Whoever reads the body sees its errors; unread, an error must not end the process.
        source.on('error', () => undefined);
        const meta = { status: res.statusCode!, statusText: res.statusMessage ?? '', headers: headersOf(res) };
        // What fetch refuses to make a Response of (a status outside 200..599, a header it cannot hold) fails as fetch fails.
        const answered = (body: ConstructorParameters<typeof Response>[0]) => {
          try {
            return new Response(body, meta);
          } catch (error) {
            res.destroy();
            reject(new TypeError('fetch failed', { cause: error }));
            return undefined;
          }
        };
        if (res.statusCode! < 300 && /^text\/event-stream\b/i.test(res.headers['content-type'] ?? '')) {
          const response = answered(lazyWebStream(source));
          if (response) NODE_BODIES.set(response, source);
          return response && resolve(response);
        }
        const chunks: Buffer[] = [];
        source.on('data', (chunk: Buffer) => chunks.push(chunk));
        source.once('error', (error) => reject(signal?.aborted ? abortReason(signal) : new TypeError('terminated', { cause: error })));
        source.once('end', () => {
          const response = answered(NULL_BODY.has(meta.status) ? null : Buffer.concat(chunks));
          if (response) resolve(response);
        });
      });
      request.end(body ?? undefined);
    });
  };
}

/**
 * The body of an answer `modelFetch` made: Node's stream of it when it is an event stream (each
 * read of the socket a Buffer, without a web stream and its promises between), else the
 * Response's own body (or nothing).
 */
export function bodyOf(response: Response): AsyncIterable<Uint8Array> {
  return NODE_BODIES.get(response) ?? ((response.body ?? []) as AsyncIterable<Uint8Array>);
}

/**
 * Connections kept open between calls, as fetch keeps them: every idle one (not only 256, Node's
 * default), the most recently used first, each closed after 4 s idle, or 1 s before the server
 * says it closes it (its `Keep-Alive: timeout`, which Node's agent reads only when it has a timeout
 * of its own), so that no call is sent on a connection as the server closes it.
 */
const KEPT = { keepAlive: true, scheduling: 'lifo', maxFreeSockets: Infinity, timeout: 4000 } as const;
const AGENTS = { http: new http.Agent(KEPT), https: new https.Agent(KEPT) };

const NODE_BODIES = new WeakMap<Response, Readable>();

/** Statuses whose Response has no body (the Fetch standard's null body statuses). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The body decompressed, when the server compressed it although it was not asked to. */
function decoded(res: IncomingMessage): Readable {
  const encoding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? zlib.createGunzip() : encoding === 'deflate' ? zlib.createInflate() : encoding === 'br' ? zlib.createBrotliDecompress() : null;
  if (!decoder) return res;
  res.on('error', (error) => decoder.destroy(error));
  return res.pipe(decoder);
}

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  return headers;
}

/** A web stream over `source` that reads nothing until it is read (high-water mark 0). */
function lazyWebStream(source: Readable): ReadableStream<Uint8Array> {
  let reader: AsyncIterator<Buffer> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        reader ??= source[Symbol.asyncIterator]();
        const { value, done } = await reader.next();
        if (done) controller.close();
        else controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
      },
      cancel() {
        source.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

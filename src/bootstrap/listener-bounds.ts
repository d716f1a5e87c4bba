import type { IncomingMessage } from 'node:http';
import { Http2ServerRequest, type Http2SecureServer, type Http2ServerResponse, type ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { RequestListener } from './transport.js';

/**
 * How long requests may take to arrive and connections may idle, on both listeners. HTTP/1.1
 * is bounded by Node's own settings (http1Bounds), the same on the plain and the TLS listener.
 * What Node does not do by itself is here too: HTTP/1.1's `requestTimeout` has no HTTP/2
 * counterpart, and a TLS connection is bounded only by `handshakeTimeout` (120 s by default)
 * until its first request begins. Node's public APIs only: connections are matched by address.
 */

/** An HTTP/1.1 connection with no request under way this long after its last answer is closed (Node's default, on both listeners). */
export const KEEP_ALIVE_TIMEOUT_MS = 5000;

/** An HTTP/2 connection with no stream open this long is closed (GOAWAY), as HTTP/1.1's keep-alive times out. */
export const SESSION_IDLE_MS = 120_000;

/**
 * The HTTP/1.1 bounds, alike on both listeners: a request (head and body) must arrive within
 * `requestTimeoutMs` of its first byte, its head within that or 60 s, whichever is less (the
 * first request of a connection counts from the connection, so a silent one is closed too).
 * Node checks every connection each tenth of the time, at most 1 s apart, and answers 408
 * through 'clientError' (server.ts).
 */
export function http1Bounds(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(60_000, requestTimeoutMs),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(requestTimeoutMs / 10))),
    // Node answers an HTTP/1.1 request without Host with an empty 400; the app answers it with the JSON error (well-formed-request.ts).
    requireHostHeader: false,
  };
}

/**
 * Wraps `listener` so that an HTTP/2 request's body must arrive in full within `timeoutMs` of its
 * head; otherwise `answer` ends that stream (408, or a reset), and the connection's other
 * streams go on. A request already whole (even if nobody read it) is left alone.
 */
export function boundHttp2Bodies(listener: RequestListener, timeoutMs: number, answer: (res: Http2ServerResponse) => void): RequestListener {
  return (req, res) => {
    if (req instanceof Http2ServerRequest && !req.stream.endAfterHeaders) {
      const { stream } = req;
      const timer = setTimeout(() => {
        if (!stream.closed && !stream.destroyed && stream.state.remoteClose !== 1) answer(res as Http2ServerResponse);
      }, timeoutMs);
      timer.unref();
      const clear = () => clearTimeout(timer);
      req.once('end', clear);
      stream.once('close', clear);
    }
    listener(req, res);
  };
}

const addressOf = (socket: { remoteAddress?: string; remotePort?: number; localAddress?: string; localPort?: number }) =>
  `${socket.remoteAddress}|${socket.remotePort}|${socket.localAddress}|${socket.localPort}`;

/**
 * A connection must complete its TLS handshake and send the head of its first request (an
 * HTTP/1.1 request, or an HTTP/2 stream) within `timeoutMs` of being accepted, or it is closed:
 * an HTTP/1.1 one with `answerHttp1` (a 408, as Node answers on the plain listener), an HTTP/2
 * one with GOAWAY. (The handshake alone is also bounded by the server's `handshakeTimeout`.)
 */
export function closeConnectionsWithoutRequest(server: Http2SecureServer, timeoutMs: number, answerHttp1: (socket: TLSSocket) => void): void {
  const pending = new Map<string, { timer: NodeJS.Timeout; close: () => void }>();
  const settle = (address: string) => {
    clearTimeout(pending.get(address)?.timer);
    pending.delete(address);
  };
  server.on('connection', (socket: Socket) => {
    const address = addressOf(socket);
    settle(address);
    const entry = {
      close: () => socket.destroy(),
      timer: setTimeout(() => {
        pending.delete(address);
        entry.close();
      }, timeoutMs),
    };
    entry.timer.unref();
    pending.set(address, entry);
  });
  server.on('tlsClientError', (_error, socket: TLSSocket) => settle(addressOf(socket)));
  // Before Node's own listener, which hands an HTTP/2 connection to its session at once.
  server.prependListener('secureConnection', (socket: TLSSocket) => {
    const address = addressOf(socket);
    const entry = pending.get(address);
    if (entry) entry.close = () => answerHttp1(socket); // an HTTP/2 session, created next, takes over
    socket.once('close', () => settle(address));
  });
  // HTTP/2: the session takes the socket over; closing it sends GOAWAY first.
  server.on('session', (session: ServerHttp2Session) => {
    const address = addressOf(session.socket);
    const entry = pending.get(address);
    if (!entry) return;
    entry.close = () => session.destroy();
    session.once('stream', () => settle(address));
  });
  server.on('request', (req: IncomingMessage | Http2ServerRequest) => {
    if (!(req instanceof Http2ServerRequest)) settle(addressOf(req.socket));
  });
}

/** Closes `session` (GOAWAY) once no stream has been open on it for `idleMs`; returns a function that stops the timer. */
export function closeWhenIdle(session: ServerHttp2Session, idleMs: number): () => void {
  let open = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(() => session.close(), idleMs);
    timer.unref();
  };
  session.on('stream', (stream) => {
    open++;
    clearTimeout(timer);
    stream.once('close', () => {
      if (--open === 0 && !session.closed) arm();
    });
  });
  arm();
  return () => clearTimeout(timer);
}

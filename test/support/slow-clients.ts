import { once } from 'node:events';
import type { ClientHttp2Session, IncomingHttpHeaders } from 'node:http2';
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { toHeaders } from './tls-clients.js';
import { credentialLine, withCredentials } from './test-credentials.js';

/**
 * Clients that take their time, for the bounds on how long a request may take to arrive:
 * bodies and heads sent a byte at a time, and connections that never send anything. Over
 * plain HTTP or TLS alike (certificates are not checked); to a service with identity on, each
 * request carries the credential it needs, so it is judged on its timing alone.
 */

export interface TrickleResult {
  status: number;
  headers: Headers;
  body: string;
  elapsedMs: number;
  bytesSent: number;
  /** HTTP/2: the RST_STREAM code the stream ended with (0: NO_ERROR). */
  rstCode?: number;
}

/** A connection to the origin of `url`: TCP, or TLS offering only `alpn` (http/1.1 by default). */
export async function openConnection(url: string, alpn = 'http/1.1'): Promise<Socket> {
  const { protocol, hostname, port } = new URL(url);
  const socket = protocol === 'https:' ? tlsConnect({ host: hostname, port: Number(port), rejectUnauthorized: false, ALPNProtocols: [alpn] }) : tcpConnect(Number(port), hostname);
  await once(socket, protocol === 'https:' ? 'secureConnect' : 'connect');
  return socket;
}

/** HTTP/1.1 on a socket of its own: `head`, then `trickled` one character every `everyMs`; whatever comes back until the server closes. */
export async function trickleHttp1(url: string, head: string, trickled: string, everyMs: number): Promise<TrickleResult> {
  const path = head.split(' ')[1]!;
  const credential = await credentialLine(new URL(url).origin + path, trickled);
  const socket = await openConnection(url);
  const started = Date.now();
  socket.write(head.replace('\r\n', `\r\n${credential}`)); // after the request line
  let sent = 0;
  const timer = setInterval(() => {
    if (sent < trickled.length && socket.writable) socket.write(trickled[sent++]!);
  }, everyMs);
  let raw = '';
  try {
    for await (const chunk of socket) raw += String(chunk);
  } catch {
    // a reset after the answer is fine: the answer is what counts
  } finally {
    clearInterval(timer);
  }
  const [headText = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine, ...lines] = headText.split('\r\n');
  const headers = new Headers(lines.filter((l) => l.includes(':')).map((line) => line.split(/:\s*/, 2) as [string, string]));
  return { status: Number(statusLine?.split(' ')[1]), headers, body, elapsedMs: Date.now() - started, bytesSent: sent };
}

/** One HTTP/2 stream on `session`: its headers, then `trickled` one character every `everyMs`, until the stream ends. */
export async function trickleHttp2(session: ClientHttp2Session, url: string, headers: Record<string, string>, trickled: string, everyMs: number): Promise<TrickleResult> {
  const { pathname, search } = new URL(url);
  const sent = await withCredentials(url, headers, trickled);
  const started = Date.now();
  const stream = session.request({ ':method': 'POST', ':path': pathname + search, ...sent });
  let count = 0;
  const timer = setInterval(() => {
    if (count < trickled.length && stream.writable) stream.write(trickled[count++]!);
  }, everyMs);
  let incoming: IncomingHttpHeaders = {};
  stream.once('response', (h) => (incoming = h));
  let body = '';
  stream.on('data', (chunk: Buffer) => (body += String(chunk)));
  stream.on('error', () => undefined); // the reset is looked at through rstCode
  // Done once the stream is closed (by the server's RST_STREAM, say) and its answer read. Node's
  // client may then never emit 'close' for a stream whose own side was still sending.
  await new Promise<void>((resolve) => {
    let ended = false;
    const settle = () => (stream.destroyed || (ended && stream.closed) ? resolve() : undefined);
    stream.once('end', () => ((ended = true), settle()));
    stream.once('aborted', () => setImmediate(settle));
    stream.once('close', () => resolve());
  });
  clearInterval(timer);
  stream.destroy();
  return { status: Number(incoming[':status'] ?? 0), headers: toHeaders(incoming), body, elapsedMs: Date.now() - started, bytesSent: count, rstCode: stream.rstCode };
}

/**
 * Opens `count` connections to the origin of `url` that never send a byte (`tcp`: not even a
 * TLS handshake), or that complete the TLS handshake offering `h2` or `http/1.1` and then send
 * nothing. Resolves once all are open; `closed` resolves with how long each stayed open.
 */
export async function openSilentConnections(url: string, count: number, kind: 'tcp' | 'h2' | 'http/1.1') {
  const started = Date.now();
  const plain = new URL(url);
  const sockets = await Promise.all(
    Array.from({ length: count }, () => (kind === 'tcp' ? openConnection(`http://${plain.host}`) : openConnection(url, kind))),
  );
  const received: string[] = [];
  const closed = Promise.all(
    sockets.map(async (socket) => {
      socket.on('data', (chunk: Buffer) => received.push(String(chunk)));
      socket.on('error', () => undefined);
      if (!socket.closed) await once(socket, 'close');
      return Date.now() - started;
    }),
  );
  return { sockets, closed, received, destroy: () => sockets.forEach((socket) => socket.destroy()) };
}

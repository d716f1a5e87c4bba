import { constants, Http2ServerResponse } from 'node:http2';
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import { errorBody } from '../adapters/http/error-mapping.js';

/**
 * Answers for requests that never reach Koa, or are taken from it: refused by Node's HTTP/1.1
 * parser (headers too large, malformed), or not arrived in full within REQUEST_TIMEOUT_MS, on
 * either listener and over either HTTP version. They get the JSON error body and the headers
 * every answer carries, never a bare status line.
 */

const TIMED_OUT = { status: 408, reason: 'Request Timeout', detail: 'the request did not arrive in full within the time limit' };
const REFUSALS = {
  timedOut: TIMED_OUT,
  tooLarge: { status: 431, reason: 'Request Header Fields Too Large', detail: 'request headers (or URL) too large' },
  malformed: { status: 400, reason: 'Bad Request', detail: 'malformed HTTP request' },
};

const bodyOf = (detail: string) => JSON.stringify(errorBody(detail));

/**
 * HTTP/1.1 (Node's 'clientError'): what the parser refused, or what did not arrive in time,
 * unless an answer had begun (then the connection is cut). `extraHeaders`: HSTS over TLS.
 */
export function answerUnparsableRequest(error: NodeJS.ErrnoException, socket: Duplex, extraHeaders: Record<string, string>): void {
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (!socket.writable || answering || (!timedOut && (error as { bytesParsed?: number }).bytesParsed === undefined)) {
    socket.destroy();
    return;
  }
  if (timedOut) setTimeout(() => socket.destroy(), 1000).unref(); // the client may still be sending
  answerOnSocket(socket, timedOut ? REFUSALS.timedOut : error.code === 'HPE_HEADER_OVERFLOW' ? REFUSALS.tooLarge : REFUSALS.malformed, extraHeaders);
}

const CONNECT = { status: 501, reason: 'Not Implemented', detail: 'the CONNECT method is not served here: this service is not a proxy' };

/**
 * CONNECT (Node's 'connect'): Node hands over the socket for a tunnel (over HTTP/2, the request's
 * response), and without a listener closes it unanswered. This service is no proxy: 501, as for a
 * method it serves nowhere.
 */
export function answerConnect(target: Duplex | Http2ServerResponse, extraHeaders: Record<string, string>): void {
  if (target instanceof Http2ServerResponse) return answerWithResponse(target, CONNECT.status, CONNECT.detail, extraHeaders);
  if (!target.writable) return void target.destroy();
  answerOnSocket(target, CONNECT, extraHeaders);
}

/**
 * A request with an `Expect` other than 100-continue (Node's 'checkExpectation'): 417 with the
 * JSON error body (RFC 9110 §10.1.1), where Node would send an empty one.
 */
export function answerUnmetExpectation(res: ServerResponse | Http2ServerResponse, extraHeaders: Record<string, string>): void {
  answerWithResponse(res, 417, 'Expect: only 100-continue is supported', extraHeaders);
}

function answerWithResponse(res: ServerResponse | Http2ServerResponse, status: number, detail: string, extraHeaders: Record<string, string>): void {
  const body = bodyOf(detail);
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'X-Request-Id': uuidv7(), 'X-Content-Type-Options': 'nosniff', ...extraHeaders };
  // HTTP/1.1: the body the client may be sending is not read, so the connection ends with this answer (HTTP/2 has no Connection header).
  if (!(res instanceof Http2ServerResponse)) headers.Connection = 'close';
  (res as ServerResponse).writeHead(status, headers);
  res.end(body);
}

function answerOnSocket(socket: Duplex, { status, reason, detail }: { status: number; reason: string; detail: string }, extraHeaders: Record<string, string>): void {
  const body = bodyOf(detail);
  const extra = Object.entries(extraHeaders).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${uuidv7()}\r\nX-Content-Type-Options: nosniff\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}

/** HTTP/1.1 over TLS: a connection whose first request's head did not arrive in time (listener-bounds.ts), answered as Node answers one on the plain listener. */
export function answerTimedOutConnection(socket: Duplex, extraHeaders: Record<string, string>): void {
  answerUnparsableRequest(Object.assign(new Error('request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket, extraHeaders);
}

/**
 * HTTP/2: a request whose body did not arrive in time. Answered 408 with the JSON error body
 * (keeping the headers Koa had already set, its X-Request-Id among them) and then RST_STREAM
 * NO_ERROR, which tells the client to stop sending (RFC 9113 §8.1); the connection's other
 * streams go on. When an answer had begun, the stream is reset (CANCEL) instead.
 */
export function answerTimedOutStream(res: Http2ServerResponse, extraHeaders: Record<string, string>): void {
  const { stream } = res;
  if (stream.closed || stream.destroyed) return;
  if (res.headersSent) {
    stream.close(stream.writableEnded ? constants.NGHTTP2_NO_ERROR : constants.NGHTTP2_CANCEL);
    return;
  }
  const body = bodyOf(TIMED_OUT.detail);
  const fallback: Record<string, string> = { 'X-Request-Id': uuidv7(), 'X-Content-Type-Options': 'nosniff', ...extraHeaders };
  for (const [name, value] of Object.entries(fallback)) if (!res.hasHeader(name)) res.setHeader(name, value);
  res.writeHead(TIMED_OUT.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
  stream.close(constants.NGHTTP2_NO_ERROR); // sent once the answer has left
}

import { v7 as uuidv7 } from 'uuid';
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { createApp } from '../adapters/http/create-app.js';
import type { Config } from './config.js';
import { ReplyJobs } from '../application/services/reply-jobs.js';
import { buildContainer } from './container.js';
import { listen } from './listen.js';
import { VERSION } from './project-files.js';
import { TOKENS, type AdapterOverrides } from './tokens.js';

export interface RunningService {
  url: string;
  server: Server;
  /** Stops accepting, lets in-flight requests finish (up to the deadline), closes resources. */
  stop(): Promise<void>;
}

/** After the deadline, how long the last events of interrupted streams get to leave before connections are cut. */
const GRACE_MS = 500;

export async function startService(config: Config, overrides: AdapterOverrides = {}): Promise<RunningService> {
  const container = await buildContainer(config, overrides);
  const logger = container.get(TOKENS.Logger);
  const app = createApp({
    resolve: (useCase) => container.get(useCase),
    ids: container.get(TOKENS.IdGenerator),
    logger,
    metrics: container.get(TOKENS.Metrics),
    settings: {
      bodyLimitBytes: config.bodyLimitBytes,
      maxTextLength: config.chat.maxTextLength,
      ssePingIntervalMs: config.ssePingIntervalMs,
      streamOnDisconnect: config.replies.onDisconnect,
      corsOrigins: config.corsOrigins,
      version: VERSION,
    },
  });
  // 64 KiB of headers (Node's default is 16): GET /api/tts?text= may carry 4,096 characters, percent-encoded.
  // A request must arrive whole within REQUEST_TIMEOUT_MS (Node checks every connection each tenth of it, at most 1 s
  // apart); what the service sends back, an event stream say, is not bounded by it.
  const server = createServer(
    {
      maxHeaderSize: 64 * 1024,
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(config.requestTimeoutMs / 10))),
    },
    app.callback(),
  );
  server.on('clientError', answerUnparsableRequest);
  await listen(server, config.port, config.host).catch(async (error: unknown) => {
    await container.get(TOKENS.Lifetime).close();
    throw error;
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const deadline = new Date(Date.now() + config.shutdownTimeoutMs);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections are closed as soon as their last request is answered.
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      // Requests in flight (streams included) may finish until the deadline; then replies still
      // running (with or without a listener) are stored as interrupted, their streams end with
      // an error event, and whatever connection is left is closed.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, config.shutdownTimeoutMs)))]);
      clearTimeout(timer);
      await container.get(ReplyJobs).shutdown(deadline);
      const last = setTimeout(() => server.closeAllConnections(), GRACE_MS);
      await closed;
      clearInterval(sweep);
      clearTimeout(last);
      await container.get(TOKENS.Lifetime).close();
    })());
  return { url, server, stop };
}

/**
 * Requests Node's HTTP parser refuses (headers too large, malformed request lines), and those
 * that do not arrive in time, never reach Koa, or are taken from it; they still get the JSON
 * error body rather than a bare status line (unless an answer had already begun).
 */
function answerUnparsableRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (!socket.writable || answering || (!timedOut && (error as { bytesParsed?: number }).bytesParsed === undefined)) {
    socket.destroy();
    return;
  }
  if (timedOut) setTimeout(() => socket.destroy(), 1000).unref(); // the client may still be sending
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = timedOut ? '408 Request Timeout' : tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const detail = timedOut ? 'the request did not arrive in full within the time limit' : tooLarge ? 'request headers (or URL) too large' : 'malformed HTTP request';
  const body = JSON.stringify({ detail, status: 'error' });
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${uuidv7()}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
  );
}

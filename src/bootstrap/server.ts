import { v7 as uuidv7 } from 'uuid';
import type { Server } from 'node:http';
import type { Http2SecureServer } from 'node:http2';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { createApp } from '../adapters/http/create-app.js';
import { errorBody } from '../adapters/http/error-mapping.js';
import { strictTransportSecurity } from '../adapters/http/middleware/security-headers.js';
import { loadCertificates } from './certificates.js';
import type { Config } from './config.js';
import { ReplyJobs } from '../application/replies/reply-jobs.js';
import { buildContainer } from './container.js';
import { listen } from './listen.js';
import { VERSION } from './project-files.js';
import { TOKENS, type AdapterOverrides } from './tokens.js';
import { plainTransport, tlsTransport } from './transport.js';

export interface RunningService {
  url: string;
  /** HTTP/1.1 (http.Server), or HTTPS with HTTP/2 and HTTP/1.1 (http2.Http2SecureServer). */
  server: Server | Http2SecureServer;
  /** Re-reads the TLS certificate files (SIGHUP); false without TLS, when unchanged, or when refused. */
  reloadCertificates(reason?: string): Promise<boolean>;
  /** Stops accepting, lets in-flight requests finish (up to the deadline), closes resources. */
  stop(): Promise<void>;
}

export async function startService(config: Config, overrides: AdapterOverrides = {}): Promise<RunningService> {
  const { tls, hsts, trustProxy } = config.transport;
  // Before anything else starts: a bad certificate stops start-up with one line.
  const certificates = tls ? await loadCertificates(tls) : undefined;
  const container = await buildContainer(config, overrides);
  const logger = container.get(TOKENS.Logger);
  const app = createApp({
    identity: container.get(TOKENS.CredentialVerifier),
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
      trustProxy,
      hsts,
      metricsToken: config.auth.metricsToken,
    },
  });
  const callback = app.callback();
  const transport =
    tls && certificates ? tlsTransport({ files: tls, certificates, listener: callback, logger }) : plainTransport(callback, { requestTimeoutMs: config.requestTimeoutMs });
  const { server } = transport;
  const extraHeaders = transport.scheme === 'https' ? `Strict-Transport-Security: ${strictTransportSecurity(hsts)}\r\n` : '';
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerUnparsableRequest(error, socket, extraHeaders));
  await listen(server, config.port, config.host).catch(async (error: unknown) => {
    await container.get(TOKENS.Lifetime).close();
    throw error;
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `${transport.scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const deadline = new Date(Date.now() + config.shutdownTimeoutMs);
      // Requests in flight (streams included) may finish until the deadline; then replies still
      // running (with or without a listener) are stored as interrupted, their streams end with
      // an error event, and whatever connection is left is closed.
      await transport.close(config.shutdownTimeoutMs, () => container.get(ReplyJobs).shutdown(deadline));
      await container.get(TOKENS.Lifetime).close();
    })());
  return { url, server, reloadCertificates: (reason = 'SIGHUP') => transport.reloadCertificates(reason), stop };
}

/**
 * Requests Node's HTTP/1.1 parser refuses (headers too large, malformed request lines), and
 * those that do not arrive in time, never reach Koa, or are taken from it; they still get the
 * JSON error body rather than a bare status line (unless an answer had already begun). (HTTP/2
 * refuses such requests per stream, with RST_STREAM, before any request exists to answer.)
 */
function answerUnparsableRequest(error: NodeJS.ErrnoException, socket: Duplex, extraHeaders: string): void {
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
  const body = JSON.stringify(errorBody(detail));
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${uuidv7()}\r\nX-Content-Type-Options: nosniff\r\n${extraHeaders}Connection: close\r\n\r\n${body}`,
  );
}

import { once } from 'node:events';
import { v7 as uuidv7 } from 'uuid';
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { createApp } from '../adapters/http/create-app.js';
import type { Config } from './config.js';
import { buildContainer } from './container.js';
import { credentialVerifierFor } from './identity.js';
import { VERSION } from './project-files.js';
import { TOKENS, type AdapterOverrides } from './tokens.js';

export interface RunningService {
  url: string;
  server: Server;
  /** Stops accepting, lets in-flight requests finish (up to the deadline), closes resources. */
  stop(): Promise<void>;
}

export async function startService(config: Config, overrides: AdapterOverrides = {}): Promise<RunningService> {
  const container = await buildContainer(config, overrides);
  const logger = container.get(TOKENS.Logger);
  const identity = await credentialVerifierFor(config.auth, logger).catch(async (error: unknown) => {
    await container.get(TOKENS.Lifetime).close();
    throw error;
  });
  const app = createApp({
    identity,
    resolve: (useCase) => container.get(useCase),
    ids: container.get(TOKENS.IdGenerator),
    logger,
    metrics: container.get(TOKENS.Metrics),
    settings: {
      bodyLimitBytes: config.bodyLimitBytes,
      maxTextLength: config.chat.maxTextLength,
      ssePingIntervalMs: config.ssePingIntervalMs,
      corsOrigins: config.corsOrigins,
      version: VERSION,
      metricsToken: config.auth.metricsToken,
    },
  });
  // 64 KiB of headers (Node's default is 16): GET /api/tts?text= may carry 4,096 characters, percent-encoded.
  const server = createServer({ maxHeaderSize: 64 * 1024 }, app.callback());
  server.on('clientError', answerUnparsableRequest);
  server.listen(config.port, config.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections are closed as soon as their last request is answered.
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const deadline = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await closed;
      clearInterval(sweep);
      clearTimeout(deadline);
      await container.get(TOKENS.Lifetime).close();
    })());
  return { url, server, stop };
}

/**
 * Requests Node's HTTP parser refuses (headers too large, malformed request lines) never
 * reach Koa; they still get the JSON error body rather than a bare status line.
 */
function answerUnparsableRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || (error as { bytesParsed?: number }).bytesParsed === undefined) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = JSON.stringify({ detail: tooLarge ? 'request headers (or URL) too large' : 'malformed HTTP request', status: 'error' });
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${uuidv7()}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
  );
}

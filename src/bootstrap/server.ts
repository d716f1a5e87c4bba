import type { Server, ServerResponse } from 'node:http';
import type { Http2SecureServer, Http2ServerResponse } from 'node:http2';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { createApp } from '../adapters/http/create-app.js';
import { strictTransportSecurity } from '../adapters/http/middleware/security-headers.js';
import { loadCertificates } from './certificates.js';
import type { Config } from './config.js';
import { ReplyJobs } from '../application/replies/reply-jobs.js';
import { SweepConversations, type Swept } from '../application/conversations/sweep-conversations.js';
import { buildContainer } from './container.js';
import { listen } from './listen.js';
import { answerConnect, answerUnmetExpectation, answerUnparsableRequest } from './refused-requests.js';
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
  /** Sweeps expired conversations now (as the timer does every SWEEP_INTERVAL_MS); what it deleted. */
  sweep(): Promise<Swept>;
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
    usage: container.get(TOKENS.UsageLimits),
    settings: {
      bodyLimitBytes: config.bodyLimitBytes,
      importMaxBytes: config.importMaxBytes,
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
  const { requestTimeoutMs } = config;
  // Answers made outside Koa (refused-requests.ts) carry HSTS over TLS as Koa's do.
  const refusalHeaders: Record<string, string> = tls ? { 'Strict-Transport-Security': strictTransportSecurity(hsts) } : {};
  const transport =
    tls && certificates
      ? tlsTransport({ files: tls, certificates, listener: callback, logger, requestTimeoutMs, refusalHeaders })
      : plainTransport(callback, { requestTimeoutMs });
  const { server } = transport;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerUnparsableRequest(error, socket, refusalHeaders));
  server.on('connect', (_req: unknown, target: Duplex | Http2ServerResponse) => answerConnect(target, refusalHeaders));
  server.on('checkExpectation', (_req: unknown, res: ServerResponse | Http2ServerResponse) => answerUnmetExpectation(res, refusalHeaders));
  await listen(server, config.port, config.host).catch(async (error: unknown) => {
    await container.get(TOKENS.Lifetime).close();
    throw error;
  });
  container.get(SweepConversations).start();
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
      await container.get(SweepConversations).stop();
      await transport.close(config.shutdownTimeoutMs, () => container.get(ReplyJobs).shutdown(deadline));
      await container.get(TOKENS.Lifetime).close();
    })());
  return { url, server, reloadCertificates: (reason = 'SIGHUP') => transport.reloadCertificates(reason), stop, sweep: () => container.get(SweepConversations).execute() };
}

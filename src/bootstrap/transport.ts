import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { loadCertificates, type LoadedCertificates } from './certificates.js';
import { watchFolders } from './file-watch.js';
import { boundHttp2Bodies, closeConnectionsWithoutRequest, closeWhenIdle, http1Bounds, SESSION_IDLE_MS } from './listener-bounds.js';
import { answerTimedOutConnection, answerTimedOutStream } from './refused-requests.js';
import type { TlsFiles } from './transport-config.js';

/** 64 KiB of headers (Node's default is 16): GET /api/tts?text= may carry 4,096 characters, percent-encoded. */
export const MAX_HEADER_BYTES = 64 * 1024;

/** What browsers and nginx use: enough for a page with many resumed streams. */
const MAX_CONCURRENT_STREAMS = 128;

export type RequestListener = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void;

/** The listening side of the service: plain HTTP/1.1, or HTTPS with HTTP/2 and HTTP/1.1 on one port. */
export interface Transport {
  server: Server | Http2SecureServer;
  scheme: 'http' | 'https';
  /** Re-reads the certificate files (SIGHUP, or a change seen in their folders); false when nothing changed or they were refused. */
  reloadCertificates(reason: string): Promise<boolean>;
  /**
   * Stops accepting and lets requests in flight finish for up to `timeoutMs`; then `drain`
   * (which ends what is still running, e.g. replies, and so their streams), and after a short
   * grace cuts what is left.
   */
  close(timeoutMs: number, drain?: () => Promise<void>): Promise<void>;
}

/** After the deadline and the drain, how long the last events of ended streams get to leave before connections are cut. */
const GRACE_MS = 500;

/**
 * Plain HTTP/1.1, with the bounds of http1Bounds. What the service sends back, an event stream
 * say, is not bounded by them.
 */
export function plainTransport(listener: RequestListener, { requestTimeoutMs }: { requestTimeoutMs: number }): Transport {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, ...http1Bounds(requestTimeoutMs) }, listener);
  return {
    server,
    scheme: 'http',
    reloadCertificates: async () => false,
    close: (timeoutMs, drain) => closeGracefully(server, timeoutMs, { cutAll: () => server.closeAllConnections(), drain }),
  };
}

export interface TlsTransportOptions {
  files: TlsFiles;
  /** Loaded (and checked) before anything else started, so a bad file stops start-up at once. */
  certificates: LoadedCertificates;
  listener: RequestListener;
  logger: Logger;
  /** Longest a request (head and body) may take to arrive, as on the plain listener (REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** Headers every answer made outside Koa carries besides the usual ones: HSTS. */
  refusalHeaders?: Record<string, string>;
  /** Quiet time after a change in the certificates' folders before they are read again. */
  reloadDebounceMs?: number;
  /** How long an HTTP/2 connection may stay open with no stream. */
  sessionIdleMs?: number;
}

/**
 * HTTPS on one port: HTTP/2 for clients that offer it in ALPN, HTTP/1.1 for the rest, with the
 * plain listener's bounds on both: HTTP/1.1 exactly as there (http1Bounds), HTTP/2 per stream
 * (a body late by `requestTimeoutMs` gets 408 or a reset), and a connection that has not
 * completed its handshake and sent a first request within `requestTimeoutMs` is closed. The
 * certificates are swapped in place (setSecureContext) when their files change or on SIGHUP;
 * connections already open keep the certificate they started with.
 */
export function tlsTransport(options: TlsTransportOptions): Transport {
  const { files, certificates, listener, logger, requestTimeoutMs, refusalHeaders = {}, reloadDebounceMs = 1000, sessionIdleMs = SESSION_IDLE_MS } = options;
  const server = createSecureServer(
    {
      ...certificates.secureContext,
      allowHTTP1: true,
      handshakeTimeout: requestTimeoutMs,
      settings: { maxHeaderListSize: MAX_HEADER_BYTES, maxConcurrentStreams: MAX_CONCURRENT_STREAMS },
    },
    boundHttp2Bodies(listener, requestTimeoutMs, (res) => answerTimedOutStream(res, refusalHeaders)),
  );
  // The HTTP/1.1 side of an HTTP/2 server reads these from the server (http.Server takes them as options).
  Object.assign(server, { maxHeaderSize: MAX_HEADER_BYTES, ...http1Bounds(requestTimeoutMs) });
  closeConnectionsWithoutRequest(server, requestTimeoutMs, (socket) => answerTimedOutConnection(socket, refusalHeaders));
  const sessions = new Set<ServerHttp2Session>();
  let stopping = false;
  server.on('session', (session) => {
    sessions.add(session);
    if (stopping) session.close(); // its handshake was under way when close() began
    const stopIdleTimer = closeWhenIdle(session, sessionIdleMs);
    session.once('close', () => {
      sessions.delete(session);
      stopIdleTimer();
    });
  });
  const sockets = new Set<Socket>();
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  let current = certificates;
  logCertificate(logger, current, 'TLS certificate');
  let reloading: Promise<boolean> = Promise.resolve(false);
  const reloadCertificates = (reason: string) =>
    (reloading = reloading.then(async () => {
      try {
        const next = await loadCertificates(files);
        if (next.digest === current.digest) {
          // A change elsewhere in the folder is routine; a SIGHUP deserves an answer.
          logger[reason === 'SIGHUP' ? 'info' : 'debug'](`TLS certificate files unchanged (${reason})`);
          return false;
        }
        server.setSecureContext(next.secureContext);
        current = next;
        logCertificate(logger, current, `TLS certificate reloaded (${reason})`);
        return true;
      } catch (error) {
        logger.warn({ reason }, `TLS certificate not reloaded (${reason}), the previous one stays: ${(error as Error).message}`);
        return false;
      }
    }));

  const paths = [files.certFile, files.keyFile, ...(files.caFile ? [files.caFile] : [])];
  const watch = watchFolders(
    paths,
    reloadDebounceMs,
    () => void reloadCertificates('files changed'),
    (folder, error) => logger.warn({ folder }, `cannot watch ${folder} for certificate renewals (${error.message}); send SIGHUP after renewing`),
  );

  const close = async (timeoutMs: number, drain?: () => Promise<void>) => {
    stopping = true;
    watch.close();
    const closed = closeGracefully(server, timeoutMs, {
      drain,
      cutAll: () => {
        for (const session of sessions) session.destroy();
        for (const socket of sockets) socket.destroy();
      },
    });
    // HTTP/2: GOAWAY, so clients open no new streams here; the open ones finish.
    for (const session of sessions) session.close();
    await closed;
  };
  return { server, scheme: 'https', reloadCertificates, close };
}

/**
 * Stops listening; keep-alive HTTP/1.1 connections close as soon as their last request is
 * answered (checked every 50 ms). Once all are closed or the deadline passed, `drain` ends
 * what still runs; whatever is still open a moment later is cut.
 */
async function closeGracefully(server: Server | Http2SecureServer, timeoutMs: number, { cutAll, drain }: { cutAll: () => void; drain?: () => Promise<void> }): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const closeIdle = () => (server as Server).closeIdleConnections();
  closeIdle();
  const sweep = setInterval(closeIdle, 50);
  let deadline: NodeJS.Timeout | undefined;
  await Promise.race([closed, new Promise((resolve) => (deadline = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(deadline);
  await drain?.();
  const last = setTimeout(cutAll, GRACE_MS);
  await closed;
  clearInterval(sweep);
  clearTimeout(last);
}

function logCertificate(logger: Logger, certificates: LoadedCertificates, what: string): void {
  const { subject, fingerprint, validTo } = certificates;
  const expired = validTo.getTime() < Date.now();
  logger[expired ? 'warn' : 'info'](
    { subject, fingerprint, validTo: validTo.toISOString() },
    `${what}: ${subject}, ${expired ? 'EXPIRED on' : 'valid until'} ${validTo.toISOString()}, SHA-256 ${fingerprint}`,
  );
}

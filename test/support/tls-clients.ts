import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { withCredentials } from './test-credentials.js';

/**
 * Clients for the service over TLS, which fetch() cannot reach: its certificate is self-signed
 * (made here with openssl) and Node 20's fetch speaks no HTTP/2. They trust any certificate and
 * report the one they saw, so tests can tell a reloaded certificate from the old one. To a
 * service with identity on, they send the credential a request needs (test-credentials.ts).
 */

export interface TestCertificate {
  certFile: string;
  keyFile: string;
  /** SHA-256 fingerprint, as Node and openssl print it (AA:BB:...). */
  fingerprint: string;
}

/** A self-signed P-256 certificate for localhost and 127.0.0.1, valid for a day, written to `dir`. */
export function makeCertificate(dir: string, name = 'server', commonName = 'localhost'): TestCertificate {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', `/CN=${commonName}`, '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'ignore' });
  return { certFile, keyFile, fingerprint: new X509Certificate(readFileSync(certFile)).fingerprint256 };
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Exactly the headers given: no credential added (IdentityTestService.bare goes through here). */
  bare?: boolean;
}

/** The request's headers, with the credential a service with identity on needs, unless `bare`. */
const headersOf = (url: string, request: RawRequest) =>
  request.bare ? (request.headers ?? {}) : withCredentials(url, request.headers, request.body);

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** "2.0" or "1.1". */
  httpVersion: string;
  /** SHA-256 fingerprint of the certificate the server presented. */
  fingerprint: string;
}

/** Node's response headers as a Fetch API Headers object, without HTTP/2's pseudo-headers. */
export function toHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (name.startsWith(':') || value === undefined) continue;
    for (const item of [value].flat()) headers.append(name, String(item));
  }
  return headers;
}

/**
 * A new HTTP/2 session to the origin of `url` (ALPN h2 only), trusting any certificate. Node's
 * client refuses to send more than 64 KiB of compressed headers itself (and its HPACK state is
 * then out of step with the server's); 256 KiB here, so the server's own limit is what a test sees.
 */
export async function openHttp2(url: string): Promise<ClientHttp2Session> {
  const session = connect(new URL(url).origin, { rejectUnauthorized: false, maxSendHeaderBlockLength: 256 * 1024 });
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  return session;
}

/** One request over HTTP/2: on `session` if given, else on a session of its own, closed after. */
export async function http2Fetch(url: string, request: RawRequest = {}, session?: ClientHttp2Session): Promise<RawResponse> {
  const own = session ?? (await openHttp2(url));
  try {
    const { pathname, search } = new URL(url);
    const headers: OutgoingHttpHeaders = { ':method': request.method ?? 'GET', ':path': pathname + search, ...(await headersOf(url, request)) };
    const stream = own.request(headers, { endStream: request.body === undefined });
    if (request.body !== undefined) stream.end(request.body);
    const [incoming, text] = await Promise.all([
      new Promise<IncomingHttpHeaders>((resolve) => stream.once('response', resolve)),
      readAll(stream),
    ]);
    const fingerprint = (own.socket as TLSSocket).getPeerCertificate().fingerprint256;
    return { status: Number(incoming[':status']), headers: toHeaders(incoming), text, httpVersion: '2.0', fingerprint };
  } finally {
    if (!session) own.close();
  }
}

/** One request over HTTP/1.1 with TLS (ALPN http/1.1), on a connection of its own. */
export async function https1Fetch(url: string, request: RawRequest = {}): Promise<RawResponse> {
  const headers = await headersOf(url, request);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      // ALPN reaches tls.connect(), though the https types do not list it.
      { method: request.method ?? 'GET', headers, rejectUnauthorized: false, agent: false, ...{ ALPNProtocols: ['http/1.1'] } },
      (res) => {
        const fingerprint = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
        readAll(res).then(
          (text) => resolve({ status: res.statusCode!, headers: toHeaders(res.headers), text, httpVersion: res.httpVersion, fingerprint }),
          reject,
        );
      },
    );
    req.once('error', reject);
    req.end(request.body);
  });
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}

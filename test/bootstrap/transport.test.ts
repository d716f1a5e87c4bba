import { expect } from 'chai';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { constants } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCertificates } from '../../src/bootstrap/certificates.js';
import { tlsTransport, type Transport } from '../../src/bootstrap/transport.js';
import { capturedLogger } from '../support/log-capture.js';
import { trickleHttp2 } from '../support/slow-clients.js';
import { http2Fetch, makeCertificate, openHttp2 } from '../support/tls-clients.js';

describe('TLS transport: idle HTTP/2 connections', function () {
  this.timeout(10_000);
  let dir: string;
  let transport: Transport;
  let url: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'transport-'));
    const { certFile, keyFile } = makeCertificate(dir);
    const files = { certFile, keyFile, caFile: undefined };
    transport = tlsTransport({
      files,
      certificates: await loadCertificates(files),
      logger: capturedLogger().logger,
      sessionIdleMs: 150,
      requestTimeoutMs: 30_000,
      // Answers after ?ms=N milliseconds: a stream open longer than the idle time.
      listener: (req, res) => {
        const ms = Number(new URL(req.url ?? '/', 'https://x').searchParams.get('ms') ?? 0);
        setTimeout(() => res.end('done'), ms);
      },
    });
    transport.server.listen(0, '127.0.0.1');
    await once(transport.server, 'listening');
    url = `https://127.0.0.1:${(transport.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await transport.close(1000);
    rmSync(dir, { recursive: true, force: true });
  });

  it('closes a connection with no open stream after the idle time, and never one with a stream open', async () => {
    const session = await openHttp2(url);
    const goaway = new Promise<number>((resolve) => session.once('goaway', () => resolve(Date.now())));
    // Open for 600 ms, four times the idle time: the connection must outlive it.
    const slow = await http2Fetch(`${url}/?ms=600`, {}, session);
    const answeredAt = Date.now();
    expect(slow.text).to.equal('done');
    const closedAt = await goaway;
    expect(closedAt, 'GOAWAY only after the stream ended').to.be.at.least(answeredAt);
    await once(session, 'close');
  });
});

describe('TLS transport: a request must arrive within requestTimeoutMs, over HTTP/2 per stream', function () {
  this.timeout(10_000);
  const LIMIT_MS = 300;
  let dir: string;
  let transport: Transport;
  let url: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'transport-'));
    const { certFile, keyFile } = makeCertificate(dir);
    const files = { certFile, keyFile, caFile: undefined };
    transport = tlsTransport({
      files,
      certificates: await loadCertificates(files),
      logger: capturedLogger().logger,
      requestTimeoutMs: LIMIT_MS,
      // /unread answers after ?ms=N without reading the body; /early sends its head at once and its end after ?ms=N.
      listener: (req, res) => {
        const { pathname, searchParams } = new URL(req.url ?? '/', 'https://x');
        const ms = Number(searchParams.get('ms') ?? 0);
        if (pathname === '/early') res.writeHead(200, { 'content-type': 'text/plain' });
        setTimeout(() => res.end('done'), ms);
      },
    });
    transport.server.listen(0, '127.0.0.1');
    await once(transport.server, 'listening');
    url = `https://127.0.0.1:${(transport.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await transport.close(1000);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a body that arrived whole is never cut, even unread and answered after the limit', async () => {
    const res = await http2Fetch(`${url}/unread?ms=${3 * LIMIT_MS}`, { method: 'POST', body: 'all of it at once' });
    expect(res.status).to.equal(200);
    expect(res.text).to.equal('done');
  });

  it('a body still arriving when the answer has begun: the stream is reset (CANCEL), not answered twice', async () => {
    const session = await openHttp2(url);
    try {
      const res = await trickleHttp2(session, `${url}/early?ms=${10 * LIMIT_MS}`, {}, 'x'.repeat(100), 100);
      expect(res.status).to.equal(200);
      expect(res.rstCode).to.equal(constants.NGHTTP2_CANCEL);
      expect(res.elapsedMs).to.be.below(5 * LIMIT_MS);
      expect(res.body).to.equal('');
    } finally {
      session.close();
    }
  });
});

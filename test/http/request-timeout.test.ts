import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import { documentedFetch, expectDocumented } from '../support/documented-responses.js';
import { startTestService, type TestService } from '../support/service.js';
import { openSilentConnections, trickleHttp1, trickleHttp2, type TrickleResult } from '../support/slow-clients.js';
import { http2Fetch, https1Fetch, makeCertificate, openHttp2 } from '../support/tls-clients.js';

const LIMIT_MS = 1000;
/** Node looks at HTTP/1.1 connections each tenth of the limit; a timed-out one is closed 1 s after its 408. Generous on a busy machine. */
const SLACK_MS = 2500;
const TIMED_OUT = { detail: 'the request did not arrive in full within the time limit', status: 'error' };

const chatBody = JSON.stringify({ text: 'slowly, slowly', user_id: 'trickler' }); // 45 bytes: 9 s at 200 ms each
const chatHead = `POST /v1/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(chatBody)}\r\n\r\n`;

async function expectTimedOut(service: TestService, res: TrickleResult): Promise<void> {
  expect(res.status, res.body).to.equal(408);
  expect(JSON.parse(res.body)).to.deep.equal(TIMED_OUT);
  expect(res.bytesSent).to.be.below(chatBody.length);
  expect(res.elapsedMs).to.be.within(LIMIT_MS - 50, LIMIT_MS + SLACK_MS);
  await expectDocumented(`${service.url}/v1/chat`, 'POST', { status: res.status, header: (name) => res.headers.get(name), body: res.body });
}

/** The same tests on both listeners: plain HTTP, and HTTPS (HTTP/1.1 and HTTP/2 on one port). */
for (const scheme of ['http', 'https'] as const) {
  describe(`REQUEST_TIMEOUT_MS on the ${scheme === 'http' ? 'plain HTTP' : 'HTTPS'} listener bounds how long a request may take to arrive, not how long an answer streams`, function () {
    this.timeout(30_000);
    let service: TestService;
    let dir: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'request-timeout-'));
      const tls = scheme === 'https' ? makeCertificate(dir) : undefined;
      service = await startTestService({
        REQUEST_TIMEOUT_MS: String(LIMIT_MS),
        OFFLINE_STREAM_DELAY_MS: '150',
        ...(tls ? { TLS_CERT_FILE: tls.certFile, TLS_KEY_FILE: tls.keyFile } : {}),
      });
    });
    after(async () => {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('HTTP/1.1: a body trickled a byte at a time is cut with 408 and the JSON error body', async () => {
      const res = await trickleHttp1(service.url, chatHead, chatBody, 200);
      await expectTimedOut(service, res);
      if (scheme === 'https') expect(res.headers.get('strict-transport-security')).to.equal('max-age=15552000');
    });

    it('HTTP/1.1: headers trickled a byte at a time are cut the same way', async () => {
      const res = await trickleHttp1(service.url, 'GET /v1/health HTTP/1.1\r\n', 'Host: x\r\nX-Slow: ' + 'y'.repeat(60) + '\r\n\r\n', 200);
      expect(res.status).to.equal(408);
      expect(JSON.parse(res.body)).to.deep.equal(TIMED_OUT);
    });

    it('50 connections that never send a byte are all closed within the limit, while the service answers as usual', async () => {
      const silent = await openSilentConnections(service.url, 50, 'tcp');
      try {
        const fetcher = scheme === 'https' ? https1Fetch : (url: string) => fetch(url);
        const started = Date.now();
        expect((await fetcher(`${service.url}/v1/health`)).status).to.equal(200);
        expect(Date.now() - started, '/v1/health meanwhile').to.be.below(1000);
        const lifetimes = await silent.closed;
        expect(Math.min(...lifetimes)).to.be.at.least(LIMIT_MS - 50);
        expect(Math.max(...lifetimes)).to.be.below(LIMIT_MS + SLACK_MS);
      } finally {
        silent.destroy();
      }
    });

    it('an event stream that lasts longer than the limit is not cut', async () => {
      const text = 'Hello! Who are you and what can you do for me today, my friend?';
      const body = JSON.stringify({ text, user_id: 'patient' });
      const started = Date.now();
      const received =
        scheme === 'https'
          ? (await http2Fetch(`${service.url}/v1/chat/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text
          : await (await documentedFetch(`${service.url}/v1/chat/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text();
      expect(Date.now() - started, 'the stream outlasted the request limit').to.be.above(2 * LIMIT_MS);
      const events: string[] = [];
      const parser = createParser({ onEvent: (event) => events.push(event.event ?? 'message') });
      parser.feed(received);
      expect(events.at(-1)).to.equal('done');
    });

    if (scheme === 'http') return;

    it('HTTP/2: a body trickled a byte at a time gets 408 and the JSON error body on that stream; the connection and its other streams go on', async () => {
      const session = await openHttp2(service.url);
      try {
        const trickled = trickleHttp2(session, `${service.url}/v1/chat`, { 'content-type': 'application/json', 'content-length': String(chatBody.length) }, chatBody, 200);
        // Meanwhile, on the same connection, other requests are answered at once.
        const health = await http2Fetch(`${service.url}/v1/health`, {}, session);
        expect(health.status).to.equal(200);
        const res = await trickled;
        await expectTimedOut(service, res);
        expect(res.rstCode, 'RST_STREAM NO_ERROR: stop sending').to.equal(0);
        expect(res.headers.get('x-request-id')).to.be.a('string');
        expect(res.headers.get('strict-transport-security')).to.equal('max-age=15552000');
        expect(session.closed || session.destroyed, 'the connection stays open').to.equal(false);
        const after = await http2Fetch(`${service.url}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'Hi', user_id: 'trickler' }) }, session);
        expect(after.status).to.equal(200);
      } finally {
        session.close();
      }
    });

    for (const alpn of ['h2', 'http/1.1'] as const) {
      it(`connections that complete the TLS handshake (${alpn}) and then send nothing are closed within the limit`, async () => {
        const silent = await openSilentConnections(service.url, 10, alpn);
        try {
          const lifetimes = await silent.closed;
          expect(Math.max(...lifetimes)).to.be.below(LIMIT_MS + SLACK_MS);
        } finally {
          silent.destroy();
        }
      });
    }
  });
}

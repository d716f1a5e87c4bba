import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Http2SecureServer } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { expectDocumented, headerReader } from '../support/documented-responses.js';
import { FakeSpeechSynthesizer } from '../support/fake-speech-synthesizer.js';
import { startTestService, type TestService } from '../support/service.js';
import { withCredentials } from '../support/test-credentials.js';
import { http2Fetch, https1Fetch, makeCertificate, openHttp2, type RawRequest, type RawResponse, type TestCertificate } from '../support/tls-clients.js';

const HSTS_DEFAULT = 'max-age=15552000';
const json = (body: unknown): RawRequest => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** A request over TLS whose answer is checked against the service's /openapi.json. */
async function documented(fetcher: typeof http2Fetch, url: string, request: RawRequest = {}): Promise<RawResponse> {
  const response = await fetcher(url, request);
  const streamed = /^(text\/event-stream|audio\/)/.test(response.headers.get('content-type') ?? '');
  await expectDocumented(url, request.method ?? 'GET', { status: response.status, header: headerReader(response.headers), body: streamed ? undefined : response.text });
  return response;
}

describe('HTTPS: HTTP/2 and HTTP/1.1 on one port', function () {
  this.timeout(20_000);
  let dir: string;
  let certificate: TestCertificate;
  let service: TestService;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'https-test-'));
    certificate = makeCertificate(dir);
    service = await startTestService(
      { TLS_CERT_FILE: certificate.certFile, TLS_KEY_FILE: certificate.keyFile, OFFLINE_STREAM_DELAY_MS: '2' },
      { speechSynthesizer: new FakeSpeechSynthesizer() },
    );
  });
  after(async () => {
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves https:// and answers GET /v1/health over HTTP/2 with HSTS and the certificate given', async () => {
    expect(service.url).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
    const response = await documented(http2Fetch, `${service.url}/v1/health`);
    expect(response.httpVersion).to.equal('2.0');
    expect(response.status).to.equal(200);
    expect(JSON.parse(response.text)).to.include({ status: 'ok' });
    expect(response.headers.get('strict-transport-security')).to.equal(HSTS_DEFAULT);
    expect(response.headers.get('x-request-id')).to.be.a('string');
    expect(response.fingerprint).to.equal(certificate.fingerprint);
  });

  const conversation = `tls-${Date.now().toString(36)}`;
  const requests: [string, string, RawRequest, number][] = [
    ['health', '/v1/health', {}, 200],
    ['readiness', '/v1/health/ready', {}, 200],
    ['traits', '/api/ai/traits', {}, 200],
    ['graph status', '/api/status/graphdb', {}, 200],
    ['save', '/api/chat/saveMessage', json({ user_id: 'tls-user', conversation_id: conversation, role: 'user', text: 'hello over TLS' }), 201],
    ['load', '/api/chat/loadMessages', json({ user_id: 'tls-user', conversation_id: conversation }), 200],
    ['conversations', '/api/chat/conversations?user_id=tls-user', {}, 200],
    ['chat', '/v1/chat', json({ user_id: 'tls-user', text: 'Hello there' }), 200],
    ['voices', '/api/tts/voices', {}, 200],
    ['speech', '/api/tts?text=Hello%20over%20TLS', {}, 200],
    ['OpenAPI', '/openapi.json', {}, 200],
    ['demo page', '/', {}, 200],
    ['demo script', '/app.js', {}, 200],
    ['invalid body', '/v1/chat', json({ user_id: 'tls-user', text: '' }), 400],
    ['unknown path', '/nope', {}, 404],
    ['wrong method', '/api/chat/saveMessage', {}, 405],
  ];
  for (const [fetcher, version] of [[http2Fetch, '2.0'], [https1Fetch, '1.1']] as const) {
    it(`answers every kind of endpoint over HTTP/${version === '2.0' ? '2' : '1.1'}, each with HSTS`, async () => {
      for (const [name, path, request, status] of requests) {
        const response = await documented(fetcher, service.url + path, request);
        expect(response.httpVersion, name).to.equal(version);
        expect(response.status, `${name}: ${response.text.slice(0, 200)}`).to.equal(status);
        expect(response.headers.get('strict-transport-security'), name).to.equal(HSTS_DEFAULT);
        expect(response.headers.get('x-content-type-options'), name).to.equal('nosniff');
      }
    });
  }

  it('streams several replies at once on one HTTP/2 connection, each complete', async () => {
    let sessions = 0;
    const countSession = () => sessions++;
    (service.server as Http2SecureServer).on('session', countSession);
    const session = await openHttp2(service.url);
    const texts = ['Hello! Who are you?', 'I feel tired today', 'What is your name?', 'Thanks a lot', 'Tell me about cats'];
    const firstDone: number[] = [];
    let order = 0;
    try {
      const replies = await Promise.all(
        texts.map(async (text) => {
          const events: EventSourceMessage[] = [];
          const parser = createParser({ onEvent: (event) => events.push(event) });
          const body = JSON.stringify({ user_id: 'tls-streams', text });
          const sent = await withCredentials(`${service.url}/v1/chat/stream`, { 'content-type': 'application/json' }, body);
          const stream = session.request({ ':method': 'POST', ':path': '/v1/chat/stream', ...sent });
          stream.end(body);
          const headers = await new Promise<Record<string, unknown>>((resolve) => stream.once('response', resolve));
          let startedAt = -1;
          for await (const chunk of stream) {
            parser.feed(Buffer.from(chunk as Uint8Array).toString('utf8'));
            if (startedAt < 0 && events.some((e) => e.event === 'start')) startedAt = order++;
          }
          firstDone.push(order++);
          return { headers, events, startedAt };
        }),
      );
      for (const { headers, events } of replies) {
        expect(headers[':status']).to.equal(200);
        expect(headers['content-type']).to.equal('text/event-stream; charset=utf-8');
        expect(headers['strict-transport-security']).to.equal(HSTS_DEFAULT);
        expect(headers).to.not.have.property('connection');
        expect(headers).to.not.have.property('transfer-encoding');
        await expectDocumented(`${service.url}/v1/chat/stream`, 'POST', { status: 200, header: headerReader(headers as never) });
        expect(events[0]!.event).to.equal('start');
        const done = events.at(-1)!;
        expect(done.event).to.equal('done');
        const deltas = events.filter((e) => e.event === 'delta').map((e) => JSON.parse(e.data).text as string);
        expect(deltas.length).to.be.greaterThan(1);
        expect(deltas.join('')).to.equal(JSON.parse(done.data).response);
      }
      // Multiplexed: every stream had started before the first one finished.
      expect(Math.max(...replies.map((r) => r.startedAt))).to.be.lessThan(Math.min(...firstDone));
      expect(sessions, 'one connection for all five').to.equal(1);
    } finally {
      (service.server as Http2SecureServer).off('session', countSession);
      session.close();
    }
  });

  it('HTTP/1.1 over TLS: headers too large still get the JSON 431, with HSTS', async () => {
    const { port } = new URL(service.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: Number(port), rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }, () =>
        socket.write(`GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\n\r\n`),
      );
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const [head, body] = answer.split('\r\n\r\n');
    expect(head!.split('\r\n')[0]).to.equal('HTTP/1.1 431 Request Header Fields Too Large');
    expect(head).to.include(`Strict-Transport-Security: ${HSTS_DEFAULT}`);
    expect(JSON.parse(body!)).to.deep.equal({ detail: 'request headers (or URL) too large', status: 'error' });
  });

  it('HTTP/2: headers too large refuse that stream only; the connection goes on', async () => {
    const session = await openHttp2(service.url);
    try {
      // Settings apply once acknowledged: one request first, so the limit is in force.
      expect((await http2Fetch(`${service.url}/v1/health`, {}, session)).status).to.equal(200);
      // Random letters: HPACK's Huffman code would squeeze a run of one letter.
      const refused = await http2Fetch(`${service.url}/v1/health`, { headers: { 'x-big': letters(70 * 1024) } }, session).then(
        (response) => `answered ${response.status}`,
        (error: Error) => error.message,
      );
      expect(refused).to.match(/NGHTTP2_ENHANCE_YOUR_CALM/);
      // 48 KiB of header fits (a 4,096-character text, percent-encoded, in GET /api/tts?text=).
      const big = await http2Fetch(`${service.url}/v1/health`, { headers: { 'x-big': letters(48 * 1024) } }, session);
      expect(big.status).to.equal(200);
    } finally {
      session.close();
    }
  });
});

const letters = (count: number) => Array.from({ length: count }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');

import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import type { ClientHttp2Session, ClientHttp2Stream } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { startTestService, type TestService } from '../support/service.js';
import { withCredentials } from '../support/test-credentials.js';
import { http2Fetch, makeCertificate, openHttp2, type TestCertificate } from '../support/tls-clients.js';

/** Opens POST /v1/chat/stream on `session`; `events` fills as they arrive, `ended` settles when the stream does. */
async function openChatStream(url: string, session: ClientHttp2Session, text: string) {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const body = JSON.stringify({ user_id: 'shutdown', text });
  const headers = await withCredentials(`${url}/v1/chat/stream`, { 'content-type': 'application/json' }, body);
  const stream: ClientHttp2Stream = session.request({ ':method': 'POST', ':path': '/v1/chat/stream', ...headers });
  stream.end(body);
  stream.on('data', (chunk: Buffer) => parser.feed(chunk.toString('utf8')));
  const ended = new Promise<'ended' | 'reset'>((resolve) => {
    stream.once('end', () => resolve('ended'));
    stream.once('error', () => resolve('reset'));
    stream.once('close', () => resolve(stream.rstCode ? 'reset' : 'ended'));
  });
  return { events, ended };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('HTTPS shutdown: HTTP/2 sessions and HTTP/1.1 connections', function () {
  this.timeout(20_000);
  let dir: string;
  let certificate: TestCertificate;
  let service: TestService | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'https-stop-'));
    certificate = makeCertificate(dir);
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const tls = () => ({ TLS_CERT_FILE: certificate.certFile, TLS_KEY_FILE: certificate.keyFile });

  it('idle connections do not hold stop up: GOAWAY to HTTP/2 sessions, idle HTTP/1.1 connections closed', async () => {
    // A deadline far beyond the test's timeout: only closing the idle connections lets stop() end in time.
    service = await startTestService({ ...tls(), SHUTDOWN_TIMEOUT_MS: '60000' });
    const session = await openHttp2(service.url);
    expect((await http2Fetch(`${service.url}/v1/health`, {}, session)).status).to.equal(200);
    const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
    const { port } = new URL(service.url);
    const keptAlive: TLSSocket = await new Promise((resolve) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: Number(port), rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }, () => {
        socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n'); // keep-alive: the connection stays open after the answer
        socket.once('data', () => resolve(socket));
      });
    });
    const keptAliveClosed = new Promise<void>((resolve) => keptAlive.once('close', () => resolve()));

    await service.stop();
    service = undefined;
    await goaway;
    await keptAliveClosed;
    expect(session.closed || session.destroyed).to.equal(true);
  });

  it('a reply streaming over HTTP/2 when stop begins finishes; no new stream is accepted', async () => {
    service = await startTestService({ ...tls(), SHUTDOWN_TIMEOUT_MS: '15000', OFFLINE_STREAM_DELAY_MS: '30' });
    const session = await openHttp2(service.url);
    const reply = await openChatStream(service.url, session, 'Hello! Who are you?');
    await until(() => reply.events.some((e) => e.event === 'delta'));
    const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
    const stopped = service.stop();
    const url = service.url;
    service = undefined;
    await goaway;
    const refused = await http2Fetch(`${url}/v1/health`, {}, session).then(
      (response) => `answered ${response.status}`,
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect(refused).to.equal('ERR_HTTP2_GOAWAY_SESSION');
    expect(await reply.ended).to.equal('ended');
    const last = reply.events.at(-1)!;
    expect(last.event).to.equal('done');
    const deltas = reply.events.filter((e) => e.event === 'delta').map((e) => JSON.parse(e.data).text as string);
    expect(deltas.join('')).to.equal(JSON.parse(last.data).response);
    await stopped;
    expect(session.closed || session.destroyed, 'the server closed the session').to.equal(true);
  });

  it('at SHUTDOWN_TIMEOUT_MS what is still streaming is cut', async () => {
    service = await startTestService({ ...tls(), SHUTDOWN_TIMEOUT_MS: '200', OFFLINE_STREAM_DELAY_MS: '2000' });
    const session = await openHttp2(service.url);
    session.on('error', () => {}); // the cut may reach the client as a session error
    const reply = await openChatStream(service.url, session, 'Hello! Who are you?');
    await until(() => reply.events.some((e) => e.event === 'start'));
    await service.stop();
    service = undefined;
    await reply.ended;
    expect(reply.events.map((e) => e.event)).to.not.include('done');
  });
});

import { expect } from 'chai';
import { connect } from 'node:net';
import { documentedFetch, expectDocumented } from '../support/documented-responses.js';
import { startTestService, type TestService } from '../support/service.js';
import { credentialLine } from '../support/test-credentials.js';

const LIMIT_MS = 1000;

/**
 * Sends `head`, then `trickle` one byte every `everyMs`, and reads whatever comes back until the
 * server closes. To a service with identity on, the head carries the credential the request
 * needs (for the user a trickled body names), so the request is judged on its timing alone.
 */
async function trickle(service: TestService, head: string, trickled: string, everyMs: number) {
  const { hostname, port } = new URL(service.url);
  const path = head.split(' ')[1]!;
  const credential = await credentialLine(service.url + path, trickled);
  const socket = connect(Number(port), hostname);
  const started = Date.now();
  socket.write(head.replace('\r\n', `\r\n${credential}`)); // after the request line
  let sent = 0;
  const timer = setInterval(() => {
    if (sent < trickled.length && socket.writable) socket.write(trickled[sent++]!);
  }, everyMs);
  let raw = '';
  try {
    for await (const chunk of socket) raw += String(chunk);
  } catch {
    // a reset after the answer is fine: the answer is what counts
  } finally {
    clearInterval(timer);
  }
  const [headText = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine, ...lines] = headText.split('\r\n');
  const headers = new Headers(lines.filter((l) => l.includes(':')).map((line) => line.split(/:\s*/, 2) as [string, string]));
  return { status: Number(statusLine?.split(' ')[1]), headers, body, elapsedMs: Date.now() - started, bytesSent: sent };
}

describe('REQUEST_TIMEOUT_MS bounds how long a request may take to arrive, not how long an answer streams', function () {
  this.timeout(30_000);
  let service: TestService;
  before(async () => {
    service = await startTestService({ REQUEST_TIMEOUT_MS: String(LIMIT_MS), OFFLINE_STREAM_DELAY_MS: '150' });
  });
  after(() => service.stop());

  it('a body trickled a byte at a time is cut with 408 and the JSON error body', async () => {
    const body = JSON.stringify({ text: 'slowly, slowly', user_id: 'trickler' });
    const head = `POST /v1/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const res = await trickle(service, head, body, 200); // the whole body would take 200 ms × 45 = 9 s
    expect(res.status).to.equal(408);
    expect(JSON.parse(res.body)).to.deep.equal({ detail: 'the request did not arrive in full within the time limit', status: 'error' });
    expect(res.bytesSent).to.be.below(body.length);
    expect(res.elapsedMs).to.be.at.least(LIMIT_MS - 50);
    await expectDocumented(`${service.url}/v1/chat`, 'POST', { status: res.status, header: (name) => res.headers.get(name), body: res.body });
  });

  it('headers trickled a byte at a time are cut the same way', async () => {
    const res = await trickle(service, 'GET /v1/health HTTP/1.1\r\n', 'Host: x\r\nX-Slow: ' + 'y'.repeat(60) + '\r\n\r\n', 200);
    expect(res.status).to.equal(408);
    expect(JSON.parse(res.body)).to.include({ status: 'error' });
  });

  it('an event stream that lasts longer than the limit is not cut', async () => {
    const started = Date.now();
    const response = await documentedFetch(`${service.url}/v1/chat/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Hello! Who are you and what can you do for me today, my friend?', user_id: 'patient' }),
    });
    const received = await response.text();
    expect(Date.now() - started, 'the stream outlasted the request limit').to.be.above(2 * LIMIT_MS);
    expect(received).to.include('event: done');
  });
});

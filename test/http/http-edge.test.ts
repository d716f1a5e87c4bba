import { expect } from 'chai';
import { connect } from 'node:net';
import type { UnitOfWork } from '../../src/application/ports/unit-of-work.js';
import { InMemoryReplyNotifications } from '../../src/adapters/persistence/memory/in-memory-reply-notifications.js';
import { InMemoryStoreCheck } from '../../src/adapters/persistence/memory/in-memory-store-check.js';
import { documentedFetch } from '../support/documented-responses.js';
import { startTestService, type TestService } from '../support/service.js';

const expectError = (res: { status: number; json: { status?: string; detail?: string } }, status: number) => {
  expect(res.status).to.equal(status);
  expect(res.json.status).to.equal('error');
  expect(res.json.detail).to.be.a('string').and.not.equal('');
};

describe('the HTTP edge', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ BODY_LIMIT_BYTES: '2048' });
  });
  after(() => service?.stop());

  it('404 JSON for an unknown path', async () => {
    const res = await service.call('GET', '/nope');
    expectError(res, 404);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
  });

  it('405 JSON with Allow for a known path and a wrong method', async () => {
    const res = await service.call('GET', '/api/chat/saveMessage');
    expectError(res, 405);
    expect(res.headers.get('allow')).to.equal('POST');
    const del = await service.call('PUT', '/v1/health');
    expectError(del, 405);
    expect(del.headers.get('allow')).to.include('GET');
  });

  it('400 for malformed JSON', async () => {
    const res = await service.call('POST', '/v1/chat', { raw: '{"text": "hi",', headers: { 'content-type': 'application/json' } });
    expectError(res, 400);
    expect(res.json.detail).to.equal('body: malformed JSON');
  });

  it('400 naming the problem for a __proto__ key', async () => {
    const res = await service.call('POST', '/v1/chat', { raw: '{"text":"hi","user_id":"u","__proto__":{"x":1}}', headers: { 'content-type': 'application/json' } });
    expectError(res, 400);
    expect(res.json.detail).to.equal('body: keys named "__proto__" are not allowed');
  });

  it('413 for a body over the limit, declared or streamed', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(4096), user_id: 'u' });
    const res = await service.call('POST', '/v1/chat', { raw: big, headers: { 'content-type': 'application/json' } });
    expectError(res, 413);
    expect(res.json.detail).to.equal('body: larger than the limit of 2048 bytes');
    const chunked = await documentedFetch(`${service.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).to.equal(413);
    expect(((await chunked.json()) as { status: string }).status).to.equal('error');
  });

  it('415 for a body that is not JSON, or has no content type', async () => {
    for (const headers of [{ 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }, {}] as Record<string, string>[]) {
      const res = await service.call('POST', '/v1/chat', { raw: '{"text":"hi","user_id":"u"}', headers });
      expectError(res, 415);
    }
  });

  it('accepts application/json with a charset and application/*+json', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/vnd.api+json']) {
      const res = await service.call('POST', '/v1/chat', { raw: '{"text":"hi","user_id":"u"}', headers: { 'content-type': type } });
      expect(res.status, type).to.equal(200);
    }
  });

  it('a request without a body is never 415, but names the missing fields', async () => {
    const res = await service.call('POST', '/v1/chat');
    expectError(res, 400);
    // text is required unless the request regenerates a reply (the conversation tree).
    expect(res.json.errors.map((e: { field: string }) => e.field)).to.include.members(['user_id', 'text']);
    expect(res.json.errors.find((e: { field: string }) => e.field === 'text').message).to.equal('is required');
  });

  it('echoes a good X-Request-Id and replaces a bad one', async () => {
    const mine = await service.call('GET', '/v1/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(mine.headers.get('x-request-id')).to.equal('abc-123');
    const tooLong = await service.call('GET', '/v1/health', { headers: { 'x-request-id': 'a'.repeat(129) } });
    expect(tooLong.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const control = await service.call('GET', '/v1/health', { headers: { 'x-request-id': 'tab\there' } });
    expect(control.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const errored = await service.call('GET', '/nope');
    expect(errored.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('sends security headers on every response', async () => {
    for (const res of [await service.call('GET', '/v1/health'), await service.call('GET', '/nope')]) {
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('x-frame-options')).to.equal('DENY');
    }
  });
});

describe('unexpected faults', () => {
  it('500 with a generic detail and no stack trace', async () => {
    const broken: UnitOfWork = {
      run: async () => {
        throw new Error('secret internal detail at /srv/app.ts:12');
      },
    };
    const service = await startTestService({}, { store: { unitOfWork: broken, notifications: new InMemoryReplyNotifications(), check: new InMemoryStoreCheck() } });
    try {
      const res = await service.post('/api/chat/loadMessages', { user_id: 'u', conversation_id: 'c' });
      expect(res.status).to.equal(500);
      expect(res.json).to.deep.equal({ detail: 'internal server error', status: 'error' });
      expect(res.text).to.not.include('secret');
    } finally {
      await service.stop();
    }
  });
});

/** One request written as it is on a socket of its own; the answer as read until the server closes. */
async function rawExchange(url: string, request: string): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.end(request);
  let answer = '';
  socket.setEncoding('utf8');
  for await (const chunk of socket) answer += chunk;
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head, body };
}

describe('requests Node would answer by itself (with an empty body, or none)', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service?.stop());

  for (const [what, request, status, detail] of [
    ['an HTTP/1.1 request without Host', 'GET /v1/health HTTP/1.1\r\n\r\n', 400, 'Host: an HTTP/1.1 request must carry a Host header'],
    ['an Expect other than 100-continue', 'POST /v1/chat HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}', 417, 'Expect: only 100-continue is supported'],
    ['CONNECT', 'CONNECT /v1/health HTTP/1.1\r\nHost: x\r\n\r\n', 501, 'the CONNECT method is not served here: this service is not a proxy'],
  ] as const) {
    it(`${what}: ${status} with the JSON error body and a request id`, async () => {
      const answer = await rawExchange(service.url, request);
      expect(answer.status, answer.headers).to.equal(status);
      expect(JSON.parse(answer.body)).to.deep.equal({ detail, status: 'error' });
      expect(answer.headers).to.match(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/i);
    });
  }

  it('HTTP/1.0 needs no Host, and Expect: 100-continue is met', async function () {
    if (process.env.TEST_AUTH_MODE === 'oidc') this.skip(); // a chat request without a token: identity off
    expect((await rawExchange(service.url, 'GET /v1/health HTTP/1.0\r\n\r\n')).status).to.equal(200);
    const body = JSON.stringify({ text: 'hi', user_id: 'expecting' });
    const answer = await rawExchange(service.url, `POST /v1/chat HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    expect(answer.headers).to.match(/^HTTP\/1.1 100 Continue/);
    expect(answer.body).to.match(/^HTTP\/1.1 200 OK/);
  });
});

describe('requests the HTTP parser refuses', () => {
  it('an over-long URL still gets a JSON error body with a request id', async () => {
    const service = await startTestService();
    try {
      const res = await service.call('GET', `/v1/health?pad=${'x'.repeat(70_000)}`);
      expect(res.status).to.equal(431);
      expect(res.json).to.deep.equal({ detail: 'request headers (or URL) too large', status: 'error' });
      expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    } finally {
      await service.stop();
    }
  });
});

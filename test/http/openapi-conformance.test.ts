import { connect } from 'node:net';
import { expect } from 'chai';
import { expectDocumented } from '../support/documented-responses.js';
import { ResponseConformance, ResponseDrift, type ObservedResponse } from '../support/openapi-conformance.js';
import { startTestService, type TestService } from '../support/service.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const health = JSON.stringify({ status: 'ok', version: '1.0.0', uptime_s: 3 });
const errorJson = (detail: string) => JSON.stringify({ detail, status: 'error' });

/** A response as the checker sees it; `headers` replace the usual JSON content type and request id. */
function observed(fields: Partial<Omit<ObservedResponse, 'header'>> & { headers?: Record<string, string> }): ObservedResponse {
  const headers = new Headers(fields.headers ?? { 'content-type': JSON_TYPE, 'x-request-id': 'r-1' });
  return { method: 'GET', path: '/v1/health', status: 200, body: health, ...fields, header: (name) => headers.get(name) };
}

describe('responses are checked against /openapi.json', () => {
  let service: TestService;
  let conformance: ResponseConformance;
  before(async () => {
    service = await startTestService({ BODY_LIMIT_BYTES: '1024' });
    conformance = new ResponseConformance((await service.call('GET', '/openapi.json')).json);
  });
  after(() => service?.stop());

  describe('the checker fails a response the document does not describe', () => {
    const drift = (fields: Parameters<typeof observed>[0], message: RegExp) =>
      expect(() => conformance.check(observed(fields))).to.throw(ResponseDrift, message);

    it('passes what the document describes', () => {
      expect(() => conformance.check(observed({}))).to.not.throw();
      expect(() => conformance.check(observed({ method: 'HEAD', body: '' }))).to.not.throw();
      expect(() => conformance.check(observed({ path: '/app.js', headers: { 'content-type': 'text/javascript' }, body: 'x' }))).to.not.throw();
    });

    it('an undocumented status', () => drift({ status: 201 }, /status 201 is not listed for GET \/v1\/health/));

    it('a body that violates its schema: a field missing, one too many, one of the wrong type', () => {
      drift({ body: JSON.stringify({ status: 'ok', version: '1.0.0' }) }, /body must have required property 'uptime_s'/);
      drift({ body: JSON.stringify({ status: 'ok', version: '1.0.0', uptime_s: 3, extra: true }) }, /body must NOT have additional properties/);
      drift({ body: JSON.stringify({ status: 'ok', version: '1.0.0', uptime_s: '3' }) }, /body\/uptime_s must be integer/);
      drift({ body: 'not json' }, /the body is not JSON/);
    });

    it('a content type the document does not list, or a missing required header', () => {
      drift({ headers: { 'content-type': 'text/html', 'x-request-id': 'r-1' } }, /content type text\/html is not listed/);
      drift({ headers: { 'content-type': JSON_TYPE } }, /the required header X-Request-Id is missing/);
    });

    it('a method the path does not list answered other than 405 with the right Allow', () => {
      drift({ method: 'PUT', status: 200 }, /the answer must be 405/);
      drift({ method: 'PUT', status: 405, body: errorJson('no'), headers: { 'content-type': JSON_TYPE, allow: 'GET, POST' } }, /Allow: GET, POST does not name/);
      expect(() => conformance.check(observed({ method: 'PUT', status: 405, body: errorJson('no'), headers: { 'content-type': JSON_TYPE, allow: 'HEAD, GET' } }))).to.not.throw();
    });

    it("a path whose operation documents its own 405 answers it in that shape (OpenAI's error object on /v1/audio/speech)", () => {
      const headers = { 'content-type': JSON_TYPE, 'x-request-id': 'r-1', allow: 'POST' };
      const error = { message: 'no', type: 'invalid_request_error', param: null, code: 'method_not_allowed' };
      drift({ method: 'GET', path: '/v1/audio/speech', status: 405, body: errorJson('no'), headers }, /body must have required property 'error'/);
      expect(() => conformance.check(observed({ method: 'GET', path: '/v1/audio/speech', status: 405, body: JSON.stringify({ error, detail: 'no', status: 'error' }), headers }))).to.not.throw();
    });

    it('audio whose ETag is not a quoted (or weak) tag, or whose Content-Length is not a number', () => {
      const audio = (extra: Record<string, string>) => ({ 'content-type': 'audio/wav', 'x-request-id': 'r-1', 'cache-control': 'public, max-age=86400', ...extra });
      const check = (headers: Record<string, string>) => () => conformance.check(observed({ path: '/api/tts?text=Hi', body: undefined, headers }));
      expect(check(audio({ etag: '"abc"', 'content-length': '44' }))).to.not.throw();
      expect(check(audio({ etag: 'W/"abc"' }))).to.not.throw();
      expect(check(audio({ etag: 'abc' }))).to.throw(ResponseDrift, /header ETag/);
      expect(check(audio({ etag: '"abc"', 'content-length': 'many' }))).to.throw(ResponseDrift, /header Content-Length/);
    });

    it('a path the document does not list, answered with anything but the error body (or, outside the API, a file)', () => {
      drift({ path: '/api/secret' }, /the path is not in the document/);
      drift({ path: '/nope', status: 404, body: JSON.stringify({ error: 'not found' }) }, /body must have required property 'detail'/);
      drift({ path: '/nope', status: 404, headers: { 'content-type': 'text/html' }, body: '<h1>404</h1>' }, /an error must be JSON/);
      expect(() => conformance.check(observed({ path: '/nope', status: 404, body: errorJson('no endpoint at /nope') }))).to.not.throw();
    });
  });

  describe('every path of the document, with every method, answers as it says', () => {
    const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

    it('listed methods answer one of their statuses; others 405 with Allow', async () => {
      const { json } = await service.call('GET', '/openapi.json');
      const paths = Object.entries(json.paths as Record<string, Record<string, unknown>>);
      expect(paths.length).to.be.above(10);
      for (const [path, item] of paths) {
        for (const method of METHODS) {
          const res = await service.call(method, path); // checked by the helper
          const listed = item[method.toLowerCase()] !== undefined || (method === 'HEAD' && item.get !== undefined);
          if (!listed && method !== 'OPTIONS') expect(res.status, `${method} ${path}`).to.equal(405);
        }
      }
    });

    it('every operation that takes a JSON body answers 413 and 415 as documented', async () => {
      const { json } = await service.call('GET', '/openapi.json');
      for (const [path, item] of Object.entries(json.paths as Record<string, Record<string, { requestBody?: unknown }>>)) {
        for (const [method, operation] of Object.entries(item)) {
          if (!operation.requestBody) continue;
          // A file taken as it is (the import) has its own limit and types: test/http/import-export.test.ts.
          if (JSON.stringify(operation.requestBody).includes('"binary"')) continue;
          const big = await service.call(method.toUpperCase(), path, { raw: JSON.stringify({ text: 'x'.repeat(2000) }), headers: { 'content-type': 'application/json' } });
          expect(big.status, `${method} ${path}`).to.equal(413);
          const plain = await service.call(method.toUpperCase(), path, { raw: 'hello', headers: { 'content-type': 'text/plain' } });
          expect(plain.status, `${method} ${path}`).to.equal(415);
        }
      }
    });

    it('unknown paths answer 404 with the error body; the demo page and the explorer are files', async () => {
      for (const [method, path] of [['GET', '/nope'], ['POST', '/v1/nope'], ['DELETE', '/api/chat'], ['GET', '/docs/nope.js'], ['PUT', '/v2/chat']]) {
        expect((await service.call(method!, path!)).status, `${method} ${path}`).to.equal(404);
      }
      for (const path of ['/', '/app.js', '/docs', '/docs/init.js', '/docs/swagger-ui.css']) {
        expect((await service.call('GET', path)).status, path).to.equal(200);
      }
    });

    it('GET /api/tts answers 304 to a matching If-None-Match, with its ETag', async () => {
      const first = await service.call('GET', '/api/tts?text=Hello');
      expect(first.status).to.equal(200);
      const again = await service.call('GET', '/api/tts?text=Hello', { headers: { 'if-none-match': first.headers.get('etag')! } });
      expect(again.status).to.equal(304);
      expect(again.headers.get('etag')).to.equal(first.headers.get('etag'));
    });

    it("a request Node's HTTP parser refuses gets the documented 400 error body", async () => {
      const { host, port } = new URL(service.url);
      const socket = connect(Number(port), host.replace(/:\d+$/, '').replace(/^\[|\]$/g, ''));
      socket.end('GET /v1/health HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n');
      let raw = '';
      for await (const chunk of socket) raw += String(chunk);
      const [head, body] = raw.split('\r\n\r\n') as [string, string];
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = new Headers(lines.map((line) => line.split(/:\s*/, 2) as [string, string]));
      const status = Number(statusLine!.split(' ')[1]);
      expect(status).to.equal(400);
      await expectDocumented(`${service.url}/v1/health`, 'GET', { status, header: (name) => headers.get(name), body });
    });
  });
});

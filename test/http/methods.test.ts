import { expect } from 'chai';
import { request } from 'node:http';
import { expectDocumented, headerReader } from '../support/documented-responses.js';
import { startTestService, type TestService } from '../support/service.js';
import { withCredentials } from '../support/test-credentials.js';

/** Methods fetch() refuses to send (TRACE among them) go through node:http; answers are checked against /openapi.json. */
async function send(service: TestService, method: string, path: string) {
  const headers = await withCredentials(`${service.url}${path}`);
  const answer = await new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request(`${service.url}${path}`, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
  await expectDocumented(`${service.url}${path}`, method, { status: answer.status, header: headerReader(answer.headers), body: answer.body });
  return answer;
}

describe('methods on known and unknown paths', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service?.stop());

  it('TRACE on an API path is 405 with Allow naming its methods, not 501', async () => {
    const res = await send(service, 'TRACE', '/v1/health');
    expect(res.status).to.equal(405);
    expect(res.headers.allow).to.equal('HEAD, GET');
    expect(JSON.parse(res.body)).to.deep.equal({ detail: 'method TRACE not allowed on /v1/health; allowed: HEAD, GET', status: 'error' });
  });

  it('TRACE on an unknown path is 404', async () => {
    expect((await send(service, 'TRACE', '/nope')).status).to.equal(404);
    expect((await send(service, 'TRACE', '/v1/nope')).status).to.equal(404);
  });

  for (const path of ['/', '/index.html', '/app.js', '/style.css']) {
    it(`${path}, a file of the demo page: other methods get 405 with Allow: GET, HEAD; OPTIONS 200 with it`, async () => {
      for (const method of ['PUT', 'PATCH', 'POST', 'DELETE', 'TRACE']) {
        const res = await send(service, method, path);
        expect(res.status, `${method} ${path}`).to.equal(405);
        expect(res.headers.allow).to.equal('GET, HEAD');
        expect(JSON.parse(res.body)).to.include({ status: 'error' });
      }
      const options = await send(service, 'OPTIONS', path);
      expect(options.status).to.equal(200);
      expect(options.headers.allow).to.equal('GET, HEAD');
      expect(options.body).to.equal('');
    });
  }

  it('paths that are no file of the page stay 404 whatever the method', async () => {
    for (const path of ['/nope.js', '/.hidden', '/%2e%2e/package.json', '/styles/', '/%E0%A4%A']) {
      for (const method of ['PUT', 'OPTIONS']) expect((await send(service, method, path)).status, `${method} ${path}`).to.equal(404);
    }
  });
});

import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { OpenAiModelsProbe } from '../../../src/adapters/llm/openai-models-probe.js';
import { closedPort } from '../../support/tcp-fixtures.js';

const KEY = 'sk-probe-test-0c7a';

describe('OpenAiModelsProbe', () => {
  let server: Server;
  let baseUrl: string;
  let answer: number | 'never' = 200;
  const seen: { url: string | undefined; headers: IncomingHttpHeaders }[] = [];
  before(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url, headers: req.headers });
      if (answer === 'never') return;
      res.writeHead(answer, { 'content-type': 'application/json' });
      res.end('{"object":"list","data":[]}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    seen.length = 0;
    answer = 200;
  });

  it('asks GET {baseUrl}/models with the key: ok', async () => {
    expect(await new OpenAiModelsProbe({ baseUrl: `${baseUrl}/`, apiKey: KEY, timeoutMs: 2000 }).ping()).to.deep.equal({ ok: true });
    expect(seen).to.have.length(1);
    expect(seen[0]!.url).to.equal('/v1/models');
    expect(seen[0]!.headers.authorization).to.equal(`Bearer ${KEY}`);
  });

  it('sends no authorization header without a key (local servers)', async () => {
    await new OpenAiModelsProbe({ baseUrl, timeoutMs: 2000 }).ping();
    expect(seen[0]!.headers.authorization).to.equal(undefined);
  });

  for (const [status, detail] of [
    [401, 'the API key was refused (HTTP 401)'],
    [403, 'the API key was refused (HTTP 403)'],
    [404, 'HTTP 404 for /models (LLM_BASE_URL usually ends in /v1)'],
    [503, 'the model server answered HTTP 503'],
  ] as const) {
    it(`HTTP ${status}: "${detail}", never the key`, async () => {
      answer = status;
      const state = await new OpenAiModelsProbe({ baseUrl, apiKey: KEY, timeoutMs: 2000 }).ping();
      expect(state).to.deep.equal({ ok: false, detail });
    });
  }

  it('a server that never answers: "no answer within 200 ms", on time', async () => {
    answer = 'never';
    const started = performance.now();
    const state = await new OpenAiModelsProbe({ baseUrl, apiKey: KEY, timeoutMs: 200 }).ping();
    expect(state).to.deep.equal({ ok: false, detail: 'no answer within 200 ms' });
    expect(performance.now() - started).to.be.below(1000);
  });

  it('nothing listening: "connection refused"', async () => {
    const state = await new OpenAiModelsProbe({ baseUrl: `http://127.0.0.1:${await closedPort()}/v1`, apiKey: KEY, timeoutMs: 2000 }).ping();
    expect(state).to.deep.equal({ ok: false, detail: 'connection refused' });
  });
});

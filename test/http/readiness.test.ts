import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { GraphStatus, GraphStatusProbe } from '../../src/application/ports/graph-status-probe.js';
import { startFakeBoltServer } from '../support/fake-bolt-server.js';
import { startTestService, type TestService } from '../support/service.js';
import { closedPort, startSilentServer } from '../support/tcp-fixtures.js';

const countingProbe = (status: GraphStatus): GraphStatusProbe & { calls: number } => {
  const probe = {
    calls: 0,
    check: async () => {
      probe.calls += 1;
      return status;
    },
  };
  return probe;
};

describe('GET /v1/health/ready with every dependency', () => {
  const services: TestService[] = [];
  afterEach(async () => {
    for (const service of services.splice(0)) await service.stop();
  });
  const start = async (...args: Parameters<typeof startTestService>) => {
    const service = await startTestService(...args);
    services.push(service);
    return service;
  };

  it('by default an unreachable graph database is reported but not required: 200', async () => {
    const service = await start({ NEO4J_URI: `bolt://127.0.0.1:${await closedPort()}`, NEO4J_PASSWORD: 'pw' });
    const res = await service.call('GET', '/v1/health/ready');
    expect(res.status).to.equal(200);
    expect(res.json.status).to.equal('ok');
    expect(res.json.checks.database).to.include({ status: 'ok', required: true });
    expect(res.json.checks.graph_database).to.deep.equal({ status: 'error', required: false, detail: 'connection refused' });
    expect(res.json.checks.language_model).to.deep.equal({ status: 'ok', required: false, detail: 'offline assistant (runs in the process)' });
  });

  it('READY_REQUIRED=database,graph_database with the graph unreachable: 503 naming it', async () => {
    const service = await start({ NEO4J_URI: `bolt://127.0.0.1:${await closedPort()}`, READY_REQUIRED: 'database,graph_database' });
    const res = await service.call('GET', '/v1/health/ready');
    expect(res.status).to.equal(503);
    expect(res.json).to.include({ status: 'error', detail: 'unavailable: graph_database' });
    expect(res.json.checks.graph_database).to.include({ status: 'error', required: true });
    expect(res.json.checks.database).to.include({ status: 'ok', required: true });
  });

  it('a required graph database that never answers fails within its time-out', async () => {
    const blackhole = await startSilentServer();
    try {
      const service = await start({ NEO4J_URI: `bolt://127.0.0.1:${blackhole.port}`, NEO4J_TIMEOUT_MS: '300', READY_REQUIRED: 'graph_database' });
      const started = performance.now();
      const res = await service.call('GET', '/v1/health/ready');
      expect(res.status).to.equal(503);
      expect(res.json.checks.graph_database.detail).to.equal('no answer within 300 ms');
      expect(res.json.checks.database).to.include({ status: 'ok', required: false });
      expect(performance.now() - started).to.be.below(800);
    } finally {
      await blackhole.close();
    }
  });

  it('a required graph database that answers: 200', async () => {
    const bolt = await startFakeBoltServer({ password: 'pw' });
    try {
      const service = await start({ NEO4J_URI: bolt.uri, NEO4J_PASSWORD: 'pw', READY_REQUIRED: 'database,graph_database' });
      const res = await service.call('GET', '/v1/health/ready');
      expect(res.status).to.equal(200);
      expect(res.json.checks.graph_database).to.deep.equal({ status: 'ok', required: true });
    } finally {
      await bolt.close();
    }
  });

  it('remote results are cached: many rapid readiness probes ask the graph database once', async () => {
    const probe = countingProbe({ state: 'connected', serverVersion: 'Neo4j/5.26.0', latencyMs: 1 });
    const service = await start({}, { graphStatusProbe: probe });
    const first = await Promise.all([1, 2, 3, 4, 5].map(() => service.call('GET', '/v1/health/ready')));
    for (let i = 0; i < 5; i++) first.push(await service.call('GET', '/v1/health/ready'));
    expect(first.map((r) => r.status)).to.deep.equal(Array(10).fill(200));
    expect(probe.calls).to.equal(1);
    // The status endpoint itself always answers live.
    await service.call('GET', '/api/status/graphdb');
    await service.call('GET', '/api/status/graphdb');
    expect(probe.calls).to.equal(3);
  });

  it('READY_CACHE_MS=0 asks every time', async () => {
    const probe = countingProbe({ state: 'unreachable', detail: 'connection refused' });
    const service = await start({ READY_CACHE_MS: '0' }, { graphStatusProbe: probe });
    for (let i = 0; i < 3; i++) await service.call('GET', '/v1/health/ready');
    expect(probe.calls).to.equal(3);
  });

  it('refuses an unknown name in READY_REQUIRED at start-up', async () => {
    let error: unknown;
    await startTestService({ READY_REQUIRED: 'database,graph' }).catch((e: unknown) => (error = e));
    expect(String(error)).to.match(/READY_REQUIRED must be "none" or a comma-separated list of database, graph_database, language_model/);
  });

  describe('with a remote language model (LLM_PROVIDER=openai)', () => {
    const KEY = 'sk-test-key-9f3e';
    let models: Server;
    let baseUrl: string;
    let hits = 0;
    before(async () => {
      models = createServer((req, res) => {
        hits += 1;
        const authorized = req.headers.authorization === `Bearer ${KEY}`;
        res.writeHead(req.url === '/v1/models' && authorized ? 200 : authorized ? 404 : 401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model' }] }));
      });
      models.listen(0, '127.0.0.1');
      await once(models, 'listening');
      baseUrl = `http://127.0.0.1:${(models.address() as AddressInfo).port}/v1`;
    });
    after(() => new Promise<void>((resolve) => models.close(() => resolve())));
    const llm = (key: string) => ({ LLM_PROVIDER: 'openai', LLM_MODEL: 'fake-model', LLM_BASE_URL: baseUrl, LLM_API_KEY: key });

    it('GET {LLM_BASE_URL}/models answers: ok, and rapid probes reach it once', async () => {
      const service = await start(llm(KEY));
      hits = 0;
      const responses = await Promise.all([1, 2, 3, 4].map(() => service.call('GET', '/v1/health/ready')));
      expect(responses.map((r) => r.status)).to.deep.equal([200, 200, 200, 200]);
      expect(responses[0]!.json.checks.language_model).to.deep.equal({ status: 'ok', required: false });
      expect(hits).to.equal(1);
    });

    it('a refused key, model required: 503 naming the model; the key is not shown', async () => {
      const service = await start({ ...llm(`${KEY}-revoked`), READY_REQUIRED: 'database,language_model' });
      const res = await service.call('GET', '/v1/health/ready');
      expect(res.status).to.equal(503);
      expect(res.json.detail).to.equal('unavailable: language_model');
      expect(res.json.checks.language_model).to.deep.equal({ status: 'error', required: true, detail: 'the API key was refused (HTTP 401)' });
      expect(res.text).not.to.include(KEY);
    });

    it('a model server that is down: reported, not required by default', async () => {
      const service = await start({ ...llm(KEY), LLM_BASE_URL: `http://127.0.0.1:${await closedPort()}/v1` });
      const res = await service.call('GET', '/v1/health/ready');
      expect(res.status).to.equal(200);
      expect(res.json.checks.language_model).to.deep.equal({ status: 'error', required: false, detail: 'connection refused' });
    });
  });
});

import { expect } from 'chai';
import type { DependencyCheck } from '../../src/application/ports/dependency-check.js';
import type { GraphStatus } from '../../src/application/ports/graph-status-probe.js';
import { startTestService, type TestService } from '../support/service.js';

describe('status and persona endpoints', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service?.stop());

  it('GET /v1/health is ok with version and uptime', async () => {
    const res = await service.call('GET', '/v1/health');
    expect(res.status).to.equal(200);
    expect(res.json.status).to.equal('ok');
    expect(res.json.version).to.match(/^\d+\.\d+\.\d+/);
    expect(res.json.uptime_s).to.be.a('number').and.at.least(0);
  });

  it('GET /v1/health/ready reports the in-memory database as ready and the graph database as disabled', async () => {
    const res = await service.call('GET', '/v1/health/ready');
    expect(res.status).to.equal(200);
    expect(res.json.status).to.equal('ok');
    expect(res.json.checks.database).to.include({ status: 'ok', required: true });
    expect(res.json.checks.graph_database).to.include({ status: 'disabled', required: false });
  });

  it('GET /api/status/graphdb says disabled when no graph database is configured', async () => {
    const res = await service.call('GET', '/api/status/graphdb');
    expect(res.status).to.equal(200);
    expect(res.json).to.include({ status: 'disabled', connected: false });
    expect(res.json.detail).to.be.a('string').and.not.equal('');
  });

  it('GET /api/ai/traits returns the default persona with scores in 0..1', async () => {
    const res = await service.call('GET', '/api/ai/traits');
    expect(res.status).to.equal(200);
    expect(res.json.status).to.equal('ok');
    expect(res.json.name).to.be.a('string').and.not.equal('');
    expect(res.json.description).to.be.a('string').and.not.equal('');
    expect(res.json.speaking_style).to.be.a('string').and.not.equal('');
    expect(res.json.descriptors).to.be.an('array').that.is.not.empty;
    const traits = ['openness', 'conscientiousness', 'extraversion', 'agreeableness', 'neuroticism'];
    expect(Object.keys(res.json.traits).sort()).to.deep.equal([...traits].sort());
    for (const trait of traits) expect(res.json.traits[trait]).to.be.within(0, 1);
  });
});

describe('readiness and graph status with failing dependencies', () => {
  const failing = (name: string, required: boolean): DependencyCheck => ({
    name,
    required,
    check: async () => ({ ok: false, detail: `${name} refused the connection` }),
  });
  const hanging: DependencyCheck = { name: 'slow', required: true, check: () => new Promise(() => {}) };

  it('503 with the failing required dependency named; optional failures do not count', async () => {
    const service = await startTestService({}, { dependencyChecks: [failing('database', true), failing('graph_database', false)] });
    try {
      const res = await service.call('GET', '/v1/health/ready');
      expect(res.status).to.equal(503);
      expect(res.json).to.include({ status: 'error', detail: 'unavailable: database' });
      expect(res.json.checks.graph_database).to.include({ status: 'error', required: false });
      expect((await service.call('GET', '/v1/health')).status).to.equal(200);
    } finally {
      await service.stop();
    }
  });

  it('a dependency that never answers fails within the readiness time-out', async () => {
    const service = await startTestService({ READINESS_TIMEOUT_MS: '200' }, { dependencyChecks: [hanging] });
    try {
      const started = Date.now();
      const res = await service.call('GET', '/v1/health/ready');
      expect(res.status).to.equal(503);
      expect(res.json.checks.slow.detail).to.equal('no answer within 200 ms');
      expect(Date.now() - started).to.be.below(5000);
    } finally {
      await service.stop();
    }
  });

  for (const [status, expected, code] of [
    [{ state: 'connected', serverVersion: 'Neo4j/5.26.0', latencyMs: 3 }, { status: 'ok', connected: true, server_version: 'Neo4j/5.26.0', latency_ms: 3 }, 200],
    [{ state: 'unreachable', detail: 'connection refused' }, { status: 'error', connected: false, detail: 'connection refused' }, 503],
  ] as [GraphStatus, object, number][]) {
    it(`GET /api/status/graphdb maps ${status.state} to ${code}`, async () => {
      const service = await startTestService({}, { graphStatusProbe: { check: async () => status } });
      try {
        const res = await service.call('GET', '/api/status/graphdb');
        expect(res.status).to.equal(code);
        expect(res.json).to.deep.equal(expected);
      } finally {
        await service.stop();
      }
    });
  }
});

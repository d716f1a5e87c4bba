import { expect } from 'chai';
import { startFakeBoltServer, type FakeBoltServer } from '../support/fake-bolt-server.js';
import { capturedLogger } from '../support/log-capture.js';
import { startTestService, type CallResult, type TestService } from '../support/service.js';
import { closedPort, startSilentServer, type SilentServer } from '../support/tcp-fixtures.js';

const PASSWORD = 'right-secret-51c2';
const WRONG = 'wrong-secret';
/** Slack over the configured time-out for the HTTP round trip on a busy machine. */
const SLACK_MS = 500;

describe('GET /api/status/graphdb through neo4j-driver', () => {
  let bolt: FakeBoltServer;
  let blackhole: SilentServer;
  before(async () => {
    bolt = await startFakeBoltServer({ password: PASSWORD });
    blackhole = await startSilentServer();
  });
  after(async () => {
    await bolt.close();
    await blackhole.close();
  });

  /** Starts the service with `environment`, calls the endpoint once, stops it; with the logs written meanwhile. */
  const graphStatusWith = async (environment: Record<string, string>) => {
    const { logger, lines } = capturedLogger('debug');
    const service: TestService = await startTestService(environment, { logger });
    try {
      const started = performance.now();
      const res: CallResult = await service.call('GET', '/api/status/graphdb');
      return { res, ms: performance.now() - started, logs: lines, service };
    } finally {
      await service.stop();
    }
  };

  it('not configured: 200 disabled', async () => {
    const { res } = await graphStatusWith({});
    expect(res.status).to.equal(200);
    expect(Object.keys(res.json).sort()).to.deep.equal(['connected', 'detail', 'status']);
    expect(res.json).to.include({ status: 'disabled', connected: false });
  });

  it('connected: 200 with the server version and the latency', async () => {
    const { res, ms } = await graphStatusWith({ NEO4J_URI: bolt.uri, NEO4J_PASSWORD: PASSWORD });
    expect(res.status).to.equal(200);
    expect(Object.keys(res.json).sort()).to.deep.equal(['connected', 'latency_ms', 'server_version', 'status']);
    expect(res.json).to.include({ status: 'ok', connected: true, server_version: 'Neo4j/5.26.0' });
    expect(res.json.latency_ms).to.be.a('number').and.at.least(0);
    expect(ms).to.be.below(2000 + SLACK_MS);
  });

  it('nothing listening: 503 "connection refused", within the time-out', async () => {
    const { res, ms } = await graphStatusWith({ NEO4J_URI: `bolt://127.0.0.1:${await closedPort()}`, NEO4J_PASSWORD: PASSWORD });
    expect(res.status).to.equal(503);
    expect(res.json).to.deep.equal({ status: 'error', connected: false, detail: 'connection refused' });
    expect(ms).to.be.below(2000 + SLACK_MS);
  });

  it('an address that never answers: 503 "no answer within 300 ms", on time', async () => {
    const { res, ms } = await graphStatusWith({ NEO4J_URI: `bolt://127.0.0.1:${blackhole.port}`, NEO4J_TIMEOUT_MS: '300' });
    expect(res.status).to.equal(503);
    expect(res.json).to.deep.equal({ status: 'error', connected: false, detail: 'no answer within 300 ms' });
    expect(ms).to.be.below(300 + SLACK_MS);
  });

  it('a refused password: 503 "authentication failed"; the password is in no response and no log line', async () => {
    const { res, logs } = await graphStatusWith({ NEO4J_URI: bolt.uri, NEO4J_PASSWORD: WRONG, LOG_LEVEL: 'trace' });
    expect(res.status).to.equal(503);
    expect(res.json).to.deep.equal({ status: 'error', connected: false, detail: 'authentication failed' });
    expect(res.text).not.to.include(WRONG);
    expect(logs.some((line) => line.includes('graph database unreachable'))).to.equal(true);
    expect(logs.filter((line) => line.includes(WRONG))).to.deep.equal([]);
  });

  it('credentials in the URI: used, and neither they nor the userinfo appear anywhere', async () => {
    const uri = `bolt://neo4j:${WRONG}@127.0.0.1:${bolt.port}`;
    const { res, logs } = await graphStatusWith({ NEO4J_URI: uri });
    expect(res.status).to.equal(503);
    expect(res.json.detail).to.equal('authentication failed');
    for (const secret of [WRONG, `neo4j:${WRONG}@`]) {
      expect(res.text).not.to.include(secret);
      expect(logs.filter((line) => line.includes(secret))).to.deep.equal([]);
    }
    expect(logs.join('\n')).to.include(`bolt://127.0.0.1:${bolt.port}`);
  });

  it('the right credentials in the URI connect', async () => {
    const { res } = await graphStatusWith({ NEO4J_URI: `bolt://neo4j:${PASSWORD}@127.0.0.1:${bolt.port}` });
    expect(res.status).to.equal(200);
    expect(res.json.connected).to.equal(true);
  });

  it('stopping the service closes the driver: GOODBYE, and no socket left open', async () => {
    const before = bolt.messages.filter((m) => m === 'GOODBYE').length;
    const { res } = await graphStatusWith({ NEO4J_URI: bolt.uri, NEO4J_PASSWORD: PASSWORD });
    expect(res.status).to.equal(200);
    await bolt.allClosed(1000);
    expect(bolt.messages.filter((m) => m === 'GOODBYE').length).to.equal(before + 1);
  });

  it('stopping the service while a check hangs: the request is answered, then nothing is left open', async () => {
    const service = await startTestService({ NEO4J_URI: `bolt://127.0.0.1:${blackhole.port}`, NEO4J_TIMEOUT_MS: '1000' });
    const accepted = blackhole.accepted;
    const pending = service.call('GET', '/api/status/graphdb');
    while (blackhole.accepted === accepted) await new Promise((resolve) => setTimeout(resolve, 20));
    const stopped = service.stop();
    expect((await pending).status).to.equal(503);
    await stopped;
    await blackhole.allClosed(1000);
  });
});

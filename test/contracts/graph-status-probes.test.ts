import { DisabledGraphStatusProbe } from '../../src/adapters/graph/disabled-graph-status-probe.js';
import { Neo4jGraphStatusProbe } from '../../src/adapters/graph/neo4j-graph-status-probe.js';
import { startFakeBoltServer } from '../support/fake-bolt-server.js';
import { closedPort, startSilentServer } from '../support/tcp-fixtures.js';
import { graphStatusProbeContract } from './graph-status-probe.contract.js';

const PASSWORD = 'contract-secret-4711';

describe('disabled graph status probe', () => {
  graphStatusProbeContract(async () => ({
    probe: new DisabledGraphStatusProbe(),
    expected: 'disabled',
    timeoutMs: 50,
    secrets: [],
    close: async () => {},
  }));
});

describe('Neo4j graph status probe, against a fake Bolt server', () => {
  graphStatusProbeContract(async () => {
    const server = await startFakeBoltServer({ password: PASSWORD });
    const probe = new Neo4jGraphStatusProbe({ uri: server.uri, password: PASSWORD, timeoutMs: 2000 });
    return { probe, expected: 'connected', timeoutMs: 2000, secrets: [PASSWORD], close: async () => (await probe.close(), await server.close()) };
  });
});

describe('Neo4j graph status probe, with a wrong password in the URI', () => {
  graphStatusProbeContract(async () => {
    const server = await startFakeBoltServer({ password: PASSWORD });
    const uri = `bolt://neo4j:wrong-${PASSWORD}@127.0.0.1:${server.port}`;
    const probe = new Neo4jGraphStatusProbe({ uri, timeoutMs: 2000 });
    return { probe, expected: 'unreachable', timeoutMs: 2000, secrets: [`wrong-${PASSWORD}`, PASSWORD], close: async () => (await probe.close(), await server.close()) };
  });
});

describe('Neo4j graph status probe, with nothing listening', () => {
  graphStatusProbeContract(async () => {
    const probe = new Neo4jGraphStatusProbe({ uri: `bolt://127.0.0.1:${await closedPort()}`, password: PASSWORD, timeoutMs: 2000 });
    return { probe, expected: 'unreachable', timeoutMs: 2000, secrets: [PASSWORD], close: () => probe.close() };
  });
});

describe('Neo4j graph status probe, against a server that never answers', () => {
  graphStatusProbeContract(async () => {
    const server = await startSilentServer();
    const probe = new Neo4jGraphStatusProbe({ uri: `bolt://127.0.0.1:${server.port}`, password: PASSWORD, timeoutMs: 300 });
    return { probe, expected: 'unreachable', timeoutMs: 300, secrets: [PASSWORD], close: async () => (await probe.close(), await server.close()) };
  });
});

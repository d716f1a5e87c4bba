import { expect } from 'chai';
import { Neo4jGraphStatusProbe } from '../../../src/adapters/graph/neo4j-graph-status-probe.js';
import { startFakeBoltServer, type FakeBoltServer } from '../../support/fake-bolt-server.js';
import { capturedLogger } from '../../support/log-capture.js';
import { closedPort, startSilentServer, type SilentServer } from '../../support/tcp-fixtures.js';

const PASSWORD = 'probe-secret-8d1f';

describe('Neo4jGraphStatusProbe', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const probeFor = (options: ConstructorParameters<typeof Neo4jGraphStatusProbe>[0]) => {
    const probe = new Neo4jGraphStatusProbe(options);
    cleanups.push(() => probe.close());
    return probe;
  };
  const fake = async (options: Parameters<typeof startFakeBoltServer>[0]): Promise<FakeBoltServer> => {
    const server = await startFakeBoltServer(options);
    cleanups.push(() => server.close());
    return server;
  };
  const silent = async (): Promise<SilentServer> => {
    const server = await startSilentServer();
    cleanups.push(() => server.close());
    return server;
  };
  const timed = async <T>(run: () => Promise<T>) => {
    const started = performance.now();
    const value = await run();
    return { value, ms: performance.now() - started };
  };

  describe('with nothing listening', () => {
    it('answers unreachable, "connection refused", well before the time-out', async () => {
      const probe = probeFor({ uri: `bolt://127.0.0.1:${await closedPort()}`, password: PASSWORD, timeoutMs: 15_000 });
      const { value, ms } = await timed(() => probe.check());
      expect(value).to.deep.equal({ state: 'unreachable', detail: 'connection refused' });
      // Well before the time-out: the refusal answered, not the clock (the bound is wide: loading the driver is slow on a busy machine).
      expect(ms, 'answered by the refusal, not by the time-out').to.be.below(7500);
    });
  });

  describe('against a server that accepts and never answers', () => {
    it('answers "no answer within 300 ms" on time, and the hung socket is closed', async () => {
      const server = await silent();
      const probe = probeFor({ uri: `bolt://127.0.0.1:${server.port}`, password: PASSWORD, timeoutMs: 300 });
      await probe.ready(); // so the 300 ms go to the server, not to loading the driver
      const { value, ms } = await timed(() => probe.check());
      expect(value).to.deep.equal({ state: 'unreachable', detail: 'no answer within 300 ms' });
      expect(ms).to.be.within(290, 700);
      expect(server.accepted).to.equal(1);
      await server.allClosed(1000);
    });

    it('keeps answering on time, one connection per check, none left open after close()', async () => {
      const server = await silent();
      const probe = probeFor({ uri: `bolt://127.0.0.1:${server.port}`, password: PASSWORD, timeoutMs: 300 });
      for (let i = 0; i < 3; i++) {
        await probe.ready(); // a check that runs out of time loads the next driver at once
        const { value, ms } = await timed(() => probe.check());
        expect(value.state).to.equal('unreachable');
        expect(ms).to.be.below(700);
      }
      await probe.close();
      await server.allClosed(1000);
      expect(server.accepted).to.equal(3);
    });

    it('close() during a hung check ends it and its socket', async () => {
      const server = await silent();
      const probe = probeFor({ uri: `bolt://127.0.0.1:${server.port}`, password: PASSWORD, timeoutMs: 5000 });
      const pending = probe.check();
      while (server.accepted === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const { ms } = await timed(() => probe.close());
      expect((await pending).state).to.equal('unreachable');
      expect(ms).to.be.below(6000);
      await server.allClosed(1000);
    });
  });

  describe('against a fake Bolt server', () => {
    for (const version of ['5.4', '4.4'] as const) {
      it(`Bolt ${version}: connected, with the server's version and a latency`, async () => {
        const server = await fake({ password: PASSWORD, version });
        const probe = probeFor({ uri: server.uri, password: PASSWORD, timeoutMs: 3000 });
        const status = await probe.check();
        expect(status).to.include({ state: 'connected', serverVersion: 'Neo4j/5.26.0' });
        expect(status.state === 'connected' && status.latencyMs).to.be.a('number').and.at.least(0);
        expect(server.messages.slice(0, version === '5.4' ? 2 : 1)).to.deep.equal(version === '5.4' ? ['HELLO', 'LOGON'] : ['HELLO']);
      });
    }

    it('checks the pooled connection with a real round trip each time, one connection in all', async () => {
      const server = await fake({ password: PASSWORD });
      const probe = probeFor({ uri: server.uri, password: PASSWORD, timeoutMs: 3000 });
      await probe.check();
      const before = server.messages.length;
      expect((await probe.check()).state).to.equal('connected');
      expect(server.messages.slice(before)).to.include('RESET');
      expect(server.connections).to.equal(1);
    });

    it('concurrent checks share the one in flight', async () => {
      const server = await fake({ password: PASSWORD });
      const probe = probeFor({ uri: server.uri, password: PASSWORD, timeoutMs: 3000 });
      const statuses = await Promise.all([1, 2, 3, 4, 5].map(() => probe.check()));
      expect(statuses.every((s) => s.state === 'connected')).to.equal(true);
      expect(server.messages.filter((m) => m === 'HELLO')).to.have.length(1);
    });

    it('close() says GOODBYE and closes the socket; later checks answer "closed"', async () => {
      const server = await fake({ password: PASSWORD });
      const probe = new Neo4jGraphStatusProbe({ uri: server.uri, password: PASSWORD, timeoutMs: 3000 });
      await probe.check();
      await probe.close();
      await server.allClosed(1000);
      expect(server.messages).to.include('GOODBYE');
      expect(await probe.check()).to.include({ state: 'unreachable' });
    });

    it('takes user and password from the URI when none are given', async () => {
      const server = await fake({ user: 'alice', password: 'p@ss word' });
      const probe = probeFor({ uri: `bolt://alice:p%40ss%20word@127.0.0.1:${server.port}`, timeoutMs: 3000 });
      expect((await probe.check()).state).to.equal('connected');
      expect(probe.address).to.equal(`bolt://127.0.0.1:${server.port}`);
    });

    it('a wrong password: "authentication failed", and neither the password nor the userinfo is logged', async () => {
      const server = await fake({ password: PASSWORD });
      const { logger, lines } = capturedLogger();
      const probe = probeFor({ uri: `bolt://neo4j:uri-${PASSWORD}@127.0.0.1:${server.port}`, password: `wrong-${PASSWORD}`, timeoutMs: 3000, logger });
      const status = await probe.check();
      expect(status).to.deep.equal({ state: 'unreachable', detail: 'authentication failed' });
      expect(lines.join('\n')).to.include('graph database unreachable').and.include('Neo.ClientError.Security.Unauthorized');
      for (const secret of [PASSWORD, 'neo4j:uri-', '@127.0.0.1']) expect(lines.join('\n')).not.to.include(secret);
    });
  });
});

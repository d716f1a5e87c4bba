import { expect } from 'chai';
import { uid } from '../support/ids.js';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { eventually } from '../support/reply-client.js';
import { startTestService, type TestService } from '../support/service.js';
import { awayFromMinuteEdge, chat, usageOf, usageSuite } from './usage.suite.js';

describe('usage and limits over HTTP (PostgreSQL store)', function () {
  this.timeout(60_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
  });
  after(() => database?.drop());

  usageSuite((environment, overrides) => startTestService({ ...environment, DATABASE_URL: database!.url }, overrides));

  describe('two instances on one database', () => {
    const both = async (environment: Record<string, string>): Promise<TestService[]> => {
      const first = await startTestService({ ...environment, DATABASE_URL: database!.url });
      try {
        return [first, await startTestService({ ...environment, DATABASE_URL: database!.url })];
      } catch (error) {
        await first.stop();
        throw error;
      }
    };
    const stopAll = (services: TestService[]) => Promise.all(services.map((service) => service.stop()));

    it('requests per minute: together they never let in more than the limit (no overshoot), and use all of it', async () => {
      for (const limit of [5, 40]) {
        const services = await both({ LIMIT_REQUESTS_PER_MINUTE: String(limit) });
        try {
          await awayFromMinuteEdge(6);
          const user = uid('u');
          // Each instance is asked more often than the whole limit, concurrently, in waves.
          const statuses: number[] = [];
          for (let wave = 0; wave < 6; wave++) {
            const answers = await Promise.all(Array.from({ length: limit }, (_, i) => chat(services[i % 2]!, user, `wave ${wave}`)));
            statuses.push(...answers.map((answer) => answer.status));
          }
          expect(statuses.filter((status) => status === 200).length, `limit ${limit}: admitted`).to.equal(limit);
          expect(statuses.filter((status) => status !== 200 && status !== 429), 'nothing but 200 and 429').to.deep.equal([]);
          for (const service of services) {
            await eventually(async () => ((await usageOf(service, user)).requests === limit ? true : undefined), `the usage on each instance (limit ${limit})`);
          }
        } finally {
          await stopAll(services);
        }
      }
    });

    it('tokens per day: a limit crossed on one instance refuses on the other within two syncs', async () => {
      const services = await both({ LIMIT_TOKENS_PER_DAY: '30', USAGE_SYNC_MS: '200' });
      try {
        const user = uid('u');
        const [a, b] = services as [TestService, TestService];
        expect((await chat(b, user)).status, 'b knows the user now').to.equal(200);
        while ((await chat(a, user)).status === 200);
        const crossedAt = Date.now();
        await eventually(async () => ((await chat(b, user)).status === 429 ? true : undefined), 'the other instance refusing', 2000);
        const took = Date.now() - crossedAt;
        expect(took, 'within two syncs (and their round trips)').to.be.below(1000);
        const totals = await usageOf(b, user);
        expect(totals.input_tokens + totals.output_tokens).to.be.at.least(30);
      } finally {
        await stopAll(services);
      }
    });

    it('a user erased on one instance leaves no usage behind that another instance had counted and sends after the erasure', async () => {
      const services = await both({ USAGE_SYNC_MS: '200' });
      const [a, b] = services as [TestService, TestService];
      try {
        for (let trial = 0; trial < 3; trial++) {
          const user = uid('erased');
          await chat(a, user);
          await chat(a, user);
          expect((await b.call('DELETE', `/api/users/${encodeURIComponent(user)}`)).status).to.equal(200);
          await new Promise((resolve) => setTimeout(resolve, 2 * 200 + 500 + 400));
          expect(await usageOf(b, user), 'after every instance synced twice').to.deep.include({ requests: 0, input_tokens: 0, output_tokens: 0 });
        }
      } finally {
        await stopAll(services);
      }
    });

    it("usage counted on one instance shows on the other after a sync; a stopped instance sends what it counted", async () => {
      const services = await both({ USAGE_SYNC_MS: '60000' });
      const [a, b] = services as [TestService, TestService];
      try {
        const user = uid('u');
        await chat(a, user);
        await chat(a, user);
        expect((await usageOf(a, user)).requests, 'its own counts at once').to.equal(2);
        expect((await usageOf(b, user)).requests, 'the other\'s not yet sent').to.equal(0);
        await a.stop();
        expect((await usageOf(b, user)).requests, 'sent on shutdown').to.equal(2);
      } finally {
        await stopAll(services);
      }
    });
  });
});

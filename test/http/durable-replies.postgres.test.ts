import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { replyClient } from '../support/reply-client.js';
import { startTestService } from '../support/service.js';
import { durableReplySuite } from './durable-replies.suite.js';

describe('durable replies (PostgreSQL store)', function () {
  this.timeout(20_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
  });
  after(() => database?.drop());

  durableReplySuite({
    start: (environment, overrides) => startTestService({ ...environment, DATABASE_URL: database!.url }, overrides),
    // The database outlives the service: another service on it reads what the first one stored.
    lastingStore: async () => ({
      overrides: {},
      messages: async (userId, conversationId) => {
        const reader = await startTestService({ DATABASE_URL: database!.url });
        try {
          return await replyClient(reader.url).messages(userId, conversationId);
        } finally {
          await reader.stop();
        }
      },
      close: async () => {},
    }),
  });
});

import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { startTestService } from '../support/service.js';
import { searchEndpointSuite } from './search.suite.js';

describe('GET /api/chat/search (PostgreSQL store)', function () {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
  });
  after(() => database?.drop());

  searchEndpointSuite(() => startTestService({ DATABASE_URL: database!.url }));
});

import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { startTestService } from '../support/service.js';
import { importExportSuite } from './import-export.suite.js';

describe('export and import (PostgreSQL store)', function () {
  this.timeout(60_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
  });
  after(() => database?.drop());

  importExportSuite(() => startTestService({ DATABASE_URL: database!.url }));
});

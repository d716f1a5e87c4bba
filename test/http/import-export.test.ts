import { startTestService } from '../support/service.js';
import { importExportSuite } from './import-export.suite.js';

describe('export and import (in-memory store)', function () {
  this.timeout(30_000);
  importExportSuite(() => startTestService());
});

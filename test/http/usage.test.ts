import { startTestService } from '../support/service.js';
import { usageSuite } from './usage.suite.js';

describe('usage and limits over HTTP (in-memory store)', function () {
  this.timeout(30_000);
  usageSuite((environment, overrides) => startTestService(environment, overrides));
});

import { startTestService } from '../support/service.js';
import { storageEndpointSuite } from './storage-endpoints.suite.js';

describe('chat storage endpoints (in-memory store)', () => {
  storageEndpointSuite(() => startTestService());
});

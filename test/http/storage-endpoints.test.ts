import { startTestService } from '../support/service.js';
import { storageEndpointSuite } from './storage-endpoints.suite.js';
import { unstorableTextSuite } from './unstorable-text.suite.js';

describe('chat storage endpoints (in-memory store)', () => {
  storageEndpointSuite(() => startTestService());
  describe('text no store can keep', () => unstorableTextSuite(() => startTestService()));
});

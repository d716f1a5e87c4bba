import { startTestService } from '../support/service.js';
import { searchEndpointSuite } from './search.suite.js';

describe('GET /api/chat/search (in-memory store)', () => searchEndpointSuite(() => startTestService()));

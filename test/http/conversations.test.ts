import { startTestService } from '../support/service.js';
import { conversationManagementSuite } from './conversations.suite.js';

describe('managing conversations (in-memory store)', function () {
  this.timeout(20_000);
  conversationManagementSuite(() => startTestService());
});

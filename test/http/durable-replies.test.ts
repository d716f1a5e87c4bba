import { InMemoryUnitOfWork } from '../../src/adapters/persistence/memory/in-memory-unit-of-work.js';
import { startTestService } from '../support/service.js';
import { durableReplySuite } from './durable-replies.suite.js';

describe('durable replies (in-memory store)', function () {
  this.timeout(20_000);
  durableReplySuite({
    start: (environment, overrides) => startTestService(environment, overrides),
    // The store is the service's own object: a test that stops the service reads it directly.
    lastingStore: async () => {
      const unitOfWork = new InMemoryUnitOfWork();
      return {
        overrides: { unitOfWork },
        messages: (_userId, conversationId) =>
          unitOfWork.run(async (r) => (await r.messages.page(conversationId, 'asc', 500, null)).messages.map((m) => ({ role: m.role, text: m.text, status: m.status, metadata: m.metadata }))),
        close: async () => {},
      };
    },
  });
});

import { InMemoryStoreCheck } from '../../src/adapters/persistence/memory/in-memory-store-check.js';
import { InMemoryUnitOfWork } from '../../src/adapters/persistence/memory/in-memory-unit-of-work.js';
import { messageJson } from '../../src/adapters/http/presenters.js';
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
        overrides: { store: { unitOfWork, notifications: unitOfWork.notifications, check: new InMemoryStoreCheck() } },
        // As a client reads them (a reply's finish_reason in its metadata).
        messages: (userId, conversationId) =>
          unitOfWork.run(async (r) =>
            (await r.messages.pageOwned(conversationId, userId, 'asc', 500, null)).page.messages.map(messageJson).map(({ role, text, status, metadata }) => ({ role, text, status, metadata })),
          ),
        close: async () => {},
      };
    },
  });
});

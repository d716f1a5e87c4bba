import { InMemoryUnitOfWork } from '../../src/adapters/persistence/memory/in-memory-unit-of-work.js';
import { storeContracts } from './all-contracts.js';

describe('in-memory store', () => {
  storeContracts(async () => {
    const unitOfWork = new InMemoryUnitOfWork();
    return { unitOfWork, notifications: unitOfWork.notifications, close: async () => {} };
  });
});

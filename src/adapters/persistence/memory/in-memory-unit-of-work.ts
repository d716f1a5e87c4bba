import { Mutex } from 'async-mutex';
import type { Repositories, UnitOfWork } from '../../../application/ports/unit-of-work.js';
import { InMemoryConversationRepository } from './in-memory-conversation-repository.js';
import { InMemoryMessageRepository } from './in-memory-message-repository.js';
import { InMemorySessionRepository } from './in-memory-session-repository.js';
import { InMemoryUserRepository } from './in-memory-user-repository.js';
import { MemoryStore } from './memory-store.js';
import { UndoLog } from './undo-log.js';

/**
 * Transactions over a MemoryStore. They run one at a time, so each sees a consistent store
 * and concurrent requests cannot interleave their writes; a failed one is undone.
 */
export class InMemoryUnitOfWork implements UnitOfWork {
  private readonly mutex = new Mutex();

  constructor(readonly store: MemoryStore = new MemoryStore()) {}

  run<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    return this.mutex.runExclusive(async () => {
      const undo = new UndoLog();
      try {
        return await work({
          users: new InMemoryUserRepository(this.store, undo),
          conversations: new InMemoryConversationRepository(this.store, undo),
          messages: new InMemoryMessageRepository(this.store, undo),
          sessions: new InMemorySessionRepository(this.store, undo),
        });
      } catch (error) {
        undo.rollback();
        throw error;
      }
    });
  }
}

import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Repositories, UnitOfWork, UnitOfWorkOptions } from '../../../application/ports/unit-of-work.js';
import { DependencyUnavailableError, DomainError } from '../../../domain/errors.js';
import { MikroOrmConversationRepository } from './mikro-orm-conversation-repository.js';
import { MikroOrmMessageRepository } from './mikro-orm-message-repository.js';
import { MikroOrmSessionRepository } from './mikro-orm-session-repository.js';
import { MikroOrmUserRepository } from './mikro-orm-user-repository.js';
import { isDatabaseUnavailable, isRetryable } from './unavailable.js';

const ATTEMPTS = 3;

/**
 * Each atomic unit of work is one PostgreSQL transaction on its own fork of the EntityManager
 * (never the global one); other work runs its statements on a fork without a transaction
 * (each statement atomic by itself). Lost races (deadlocks) are retried; a database that is
 * unreachable, goes away or stalls becomes DependencyUnavailableError (503).
 */
export class MikroOrmUnitOfWork implements UnitOfWork {
  constructor(private readonly orm: MikroORM) {}

  async run<T>(work: (repositories: Repositories) => Promise<T>, options: UnitOfWorkOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const em = this.orm.em.fork() as EntityManager;
      try {
        if (options.atomic === false) return await work(repositoriesOn(em));
        return await em.transactional((tx) => work(repositoriesOn(tx as EntityManager)));
      } catch (error) {
        if (error instanceof DomainError) throw error;
        if (isDatabaseUnavailable(error)) throw new DependencyUnavailableError('the database is unavailable; try again shortly');
        if (attempt < ATTEMPTS && isRetryable(error)) continue;
        throw error;
      }
    }
  }
}

function repositoriesOn(em: EntityManager): Repositories {
  return {
    users: new MikroOrmUserRepository(em),
    conversations: new MikroOrmConversationRepository(em),
    messages: new MikroOrmMessageRepository(em),
    sessions: new MikroOrmSessionRepository(em),
  };
}

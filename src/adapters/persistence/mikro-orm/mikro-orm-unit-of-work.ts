import type { EntityManager } from '@mikro-orm/postgresql';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Repositories, UnitOfWork } from '../../../application/ports/unit-of-work.js';
import { DependencyUnavailableError } from '../../../domain/errors.js';
import { MikroOrmConversationRepository } from './mikro-orm-conversation-repository.js';
import { MikroOrmMessageRepository } from './mikro-orm-message-repository.js';
import { MikroOrmSessionRepository } from './mikro-orm-session-repository.js';
import { MikroOrmUserRepository } from './mikro-orm-user-repository.js';
import { isDatabaseUnavailable, isRetryable } from './unavailable.js';

const ATTEMPTS = 3;

/**
 * Each unit of work is one PostgreSQL transaction on its own fork of the EntityManager
 * (never the global one). Lost races (deadlocks, serialization failures) are retried;
 * an unreachable database becomes DependencyUnavailableError (503).
 */
export class MikroOrmUnitOfWork implements UnitOfWork {
  constructor(private readonly orm: MikroORM) {}

  async run<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.orm.em.fork().transactional((em) => work(repositoriesOn(em as EntityManager)));
      } catch (error) {
        if (isDatabaseUnavailable(error)) {
          throw new DependencyUnavailableError('the database is unavailable; try again shortly');
        }
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

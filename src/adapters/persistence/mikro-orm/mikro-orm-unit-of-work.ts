import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Repositories, UnitOfWork, UnitOfWorkOptions } from '../../../application/ports/unit-of-work.js';
import { DependencyUnavailableError, DomainError } from '../../../domain/errors.js';
import { MikroOrmConversationRepository } from './mikro-orm-conversation-repository.js';
import { MikroOrmMessageRepository } from './mikro-orm-message-repository.js';
import { MikroOrmReplyRepository } from './mikro-orm-reply-repository.js';
import { MikroOrmSessionRepository } from './mikro-orm-session-repository.js';
import { MikroOrmUserRepository } from './mikro-orm-user-repository.js';
import { Statements } from './statements.js';
import { isDatabaseUnavailable, isRetryable } from './unavailable.js';

const ATTEMPTS = 3;

/**
 * Each atomic unit of work is one PostgreSQL transaction on its own fork of the EntityManager
 * (never the global one); other work sends each statement on a pooled connection without a
 * transaction (each statement atomic by itself, and nothing to fork: the repositories keep no
 * identity map). Lost races (deadlocks) are retried; a database that is unreachable, goes away
 * or stalls becomes DependencyUnavailableError (503).
 */
export class MikroOrmUnitOfWork implements UnitOfWork {
  /** Repositories whose statements each take a pooled connection: the same for every non-atomic run. */
  private readonly pooled: Repositories;

  constructor(private readonly orm: MikroORM) {
    this.pooled = repositoriesOn(Statements.pooled(orm));
  }

  async run<T>(work: (repositories: Repositories) => Promise<T>, options: UnitOfWorkOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (options.atomic === false) return await work(this.pooled);
        const em = this.orm.em.fork() as EntityManager;
        return await em.transactional((tx) => work(repositoriesOn(Statements.inTransaction(tx as EntityManager))));
      } catch (error) {
        if (error instanceof DomainError) throw error;
        if (isDatabaseUnavailable(error)) throw new DependencyUnavailableError('the database is unavailable; try again shortly');
        if (attempt < ATTEMPTS && isRetryable(error)) continue;
        throw error;
      }
    }
  }
}

function repositoriesOn(db: Statements): Repositories {
  return {
    users: new MikroOrmUserRepository(db),
    conversations: new MikroOrmConversationRepository(db),
    messages: new MikroOrmMessageRepository(db),
    sessions: new MikroOrmSessionRepository(db),
    replies: new MikroOrmReplyRepository(db),
  };
}

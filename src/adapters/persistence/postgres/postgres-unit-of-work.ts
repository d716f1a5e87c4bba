import type pg from 'pg';
import type { Repositories, UnitOfWork, UnitOfWorkOptions } from '../../../application/ports/unit-of-work.js';
import { DomainError } from '../../../domain/errors.js';
import { PostgresConversationRepository } from './postgres-conversation-repository.js';
import { PostgresMessageRepository } from './postgres-message-repository.js';
import { PostgresMessageSearch } from './postgres-message-search.js';
import { PostgresReplyRepository } from './postgres-reply-repository.js';
import { PostgresResponseRepository } from './postgres-response-repository.js';
import { PostgresSessionRepository } from './postgres-session-repository.js';
import { inTransaction, Statements } from './statements.js';
import { isDatabaseUnavailable, isLostInsertRace, isRetryable, unavailableError } from './unavailable.js';

const ATTEMPTS = 3;

/**
 * Each atomic unit of work is one PostgreSQL transaction on one connection of the pool; other
 * work sends each statement on a pooled connection without a transaction (each statement atomic
 * by itself). Lost races (deadlocks, serialization failures) are retried; a database that is
 * unreachable, goes away or stalls becomes DependencyUnavailableError (503). A transaction whose
 * insert found an id taken by a concurrent one (a unique violation) is run again too.
 */
export class PostgresUnitOfWork implements UnitOfWork {
  /** Repositories whose statements each take a pooled connection: the same for every non-atomic run. */
  private readonly pooled: Repositories;

  /** `searchLanguage`: the text-search configuration search stems by (SEARCH_LANGUAGE), `english` when not given. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly searchLanguage = 'english',
  ) {
    this.pooled = repositoriesOn(new Statements(pool), searchLanguage);
  }

  async run<T>(work: (repositories: Repositories) => Promise<T>, options: UnitOfWorkOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (options.atomic === false) return await work(this.pooled);
        return await inTransaction(this.pool, (db) => work(repositoriesOn(db, this.searchLanguage)));
      } catch (error) {
        if (error instanceof DomainError) throw error;
        if (isDatabaseUnavailable(error)) throw unavailableError(this.pool, error);
        // A transaction that lost an insert race (an id taken meanwhile: untilSettled) runs again and sees it.
        if (attempt < ATTEMPTS && (isRetryable(error) || (options.atomic !== false && isLostInsertRace(error)))) continue;
        throw error;
      }
    }
  }
}

function repositoriesOn(db: Statements, searchLanguage: string): Repositories {
  return {
    conversations: new PostgresConversationRepository(db),
    messages: new PostgresMessageRepository(db),
    search: new PostgresMessageSearch(db, searchLanguage),
    sessions: new PostgresSessionRepository(db),
    replies: new PostgresReplyRepository(db),
    responses: new PostgresResponseRepository(db),
  };
}

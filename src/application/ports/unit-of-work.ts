import type { ConversationRepository } from './conversation-repository.js';
import type { MessageRepository } from './message-repository.js';
import type { MessageSearch } from './message-search.js';
import type { ReplyRepository } from './reply-repository.js';
import type { ResponseRepository } from './response-repository.js';
import type { SessionRepository } from './session-repository.js';

export interface Repositories {
  conversations: ConversationRepository;
  messages: MessageRepository;
  search: MessageSearch;
  replies: ReplyRepository;
  sessions: SessionRepository;
  /** The OpenAI face's own records (responses' requests, conversations' metadata). */
  responses: ResponseRepository;
}

export interface UnitOfWorkOptions {
  /**
   * Whether everything `work` writes must be stored together (a transaction; the default).
   * False for work whose every repository call is atomic by itself, such as one call: then
   * no transaction is opened, which saves its round trips.
   */
  atomic?: boolean;
}

/**
 * The transaction boundary: everything `work` writes through the repositories it is given
 * is stored together, or, if `work` throws, not at all. A store that cannot be reached
 * fails with DependencyUnavailableError.
 */
export interface UnitOfWork {
  run<T>(work: (repositories: Repositories) => Promise<T>, options?: UnitOfWorkOptions): Promise<T>;
}

import type { ConversationRepository } from './conversation-repository.js';
import type { MessageRepository } from './message-repository.js';
import type { SessionRepository } from './session-repository.js';
import type { UserRepository } from './user-repository.js';

export interface Repositories {
  users: UserRepository;
  conversations: ConversationRepository;
  messages: MessageRepository;
  sessions: SessionRepository;
}

/**
 * The transaction boundary: everything `work` writes through the repositories it is given
 * is stored together, or, if `work` throws, not at all.
 */
export interface UnitOfWork {
  run<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
}

import type { Session } from '../../domain/session.js';

export interface SessionRepository {
  findById(sessionId: string): Promise<Session | null>;
  /** Inserts or replaces the session with that id. */
  save(session: Session): Promise<void>;
  /**
   * Inserts a new session; false (nothing written) when one with its id exists, made meanwhile by
   * a concurrent request included (a check before cannot tell: both may find none).
   */
  create(session: Session): Promise<boolean>;
}

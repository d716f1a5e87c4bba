import type { Session } from '../../domain/session.js';

export interface SessionRepository {
  findById(sessionId: string): Promise<Session | null>;
  /** Inserts or replaces the session with that id. */
  save(session: Session): Promise<void>;
}

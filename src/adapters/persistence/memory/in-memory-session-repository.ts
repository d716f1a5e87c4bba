import type { SessionRepository } from '../../../application/ports/session-repository.js';
import type { Session } from '../../../domain/session.js';
import type { UndoLog } from './undo-log.js';
import type { MemoryStore } from './memory-store.js';

export class InMemorySessionRepository implements SessionRepository {
  constructor(
    private readonly store: MemoryStore,
    private readonly undo: UndoLog,
  ) {}

  async findById(sessionId: string): Promise<Session | null> {
    return this.store.sessions.get(sessionId) ?? null;
  }

  async save(session: Session): Promise<void> {
    const previous = this.store.sessions.get(session.sessionId);
    this.store.sessions.set(session.sessionId, session);
    this.undo.record(() =>
      previous ? this.store.sessions.set(session.sessionId, previous) : this.store.sessions.delete(session.sessionId),
    );
  }
}

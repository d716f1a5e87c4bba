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

  async create(session: Session): Promise<boolean> {
    if (this.store.sessions.has(session.sessionId)) return false;
    await this.save(session);
    return true;
  }

  async save(session: Session): Promise<void> {
    const { sessionId, conversationId } = session;
    const previous = this.store.sessions.get(sessionId);
    this.store.sessions.set(sessionId, session);
    this.store.noteActivity(conversationId);
    if (previous) {
      this.undo.record(() => this.store.sessions.set(sessionId, previous));
      return;
    }
    let ofConversation = this.store.sessionsOf.get(conversationId);
    if (!ofConversation) this.store.sessionsOf.set(conversationId, (ofConversation = new Set()));
    ofConversation.add(sessionId);
    this.undo.record(() => {
      this.store.sessions.delete(sessionId);
      ofConversation.delete(sessionId);
      if (ofConversation.size === 0) this.store.sessionsOf.delete(conversationId);
    });
  }
}

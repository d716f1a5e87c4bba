import { Conversation } from '../../domain/conversation.js';
import { SessionConflictError } from '../../domain/errors.js';
import type { Metadata } from '../../domain/metadata.js';
import { Session } from '../../domain/session.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { Repositories, UnitOfWork } from '../ports/unit-of-work.js';
import { storeMessages, type IncomingMessage } from '../services/store-messages.js';

export interface SaveSessionInput {
  userId: string;
  conversationId: string;
  sessionId?: string;
  title?: string | null;
  startedAt?: Date | null;
  endedAt?: Date | null;
  metadata?: Metadata;
  messages?: IncomingMessage[];
}

export interface SaveSessionResult {
  session: Session;
  created: boolean;
  /** The conversation's message count after the save. */
  messageCount: number;
  /** Messages newly stored by this request. */
  messagesSaved: number;
}

/** POST /api/chat/saveSession: the session and its messages, all stored or none. */
export class SaveSession {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  execute(input: SaveSessionInput): Promise<SaveSessionResult> {
    return this.unitOfWork.run(async (repositories) => {
      const now = this.clock.now();
      const candidate = Conversation.create({ conversationId: input.conversationId, userId: input.userId, createdAt: now });
      // The messages first: storing them claims the conversation (or finds it is another user's).
      const stored = await storeMessages(repositories, candidate, input.messages ?? [], { now, newId: () => this.ids.newId() });
      const { conversation } = stored;
      const sessionId = input.sessionId ?? this.ids.newId();
      let existing = await repositories.sessions.findById(sessionId);
      if (!existing) {
        const made = Session.create({
          sessionId,
          conversationId: conversation.conversationId,
          userId: conversation.userId,
          title: input.title ?? null,
          startedAt: input.startedAt ?? null,
          endedAt: input.endedAt ?? null,
          metadata: input.metadata ?? {},
          createdAt: now,
          updatedAt: now,
        });
        if (await repositories.sessions.create(made)) return this.result(repositories, made, true, stored.insertedIds.size);
        // Made meanwhile by a concurrent request: this one updates it, or finds it another conversation's.
        existing = await repositories.sessions.findById(sessionId);
        if (!existing) throw new SessionConflictError(sessionId);
      }
      if (!existing.belongsTo(conversation.conversationId)) throw new SessionConflictError(sessionId);
      const session = existing.update({ title: input.title, startedAt: input.startedAt, endedAt: input.endedAt, metadata: input.metadata }, now);
      await repositories.sessions.save(session);
      return this.result(repositories, session, false, stored.insertedIds.size);
    });
  }

  private async result(repositories: Repositories, session: Session, created: boolean, messagesSaved: number): Promise<SaveSessionResult> {
    return { session, created, messageCount: await repositories.messages.count(session.conversationId), messagesSaved };
  }
}

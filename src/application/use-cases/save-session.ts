import { Conversation } from '../../domain/conversation.js';
import { SessionConflictError } from '../../domain/errors.js';
import type { Metadata } from '../../domain/metadata.js';
import { Session } from '../../domain/session.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
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
      const existing = await repositories.sessions.findById(sessionId);
      if (existing && !existing.belongsTo(conversation.conversationId)) throw new SessionConflictError(sessionId);
      const changes = { title: input.title, startedAt: input.startedAt, endedAt: input.endedAt, metadata: input.metadata };
      const session = existing
        ? existing.update(changes, now)
        : Session.create({
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
      await repositories.sessions.save(session);
      return {
        session,
        created: !existing,
        messageCount: await repositories.messages.count(conversation.conversationId),
        messagesSaved: stored.insertedIds.size,
      };
    });
  }
}

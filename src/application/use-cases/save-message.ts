import { Conversation } from '../../domain/conversation.js';
import type { Message } from '../../domain/message.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import { storeMessages, type IncomingMessage } from '../services/store-messages.js';

export interface SaveMessageInput extends IncomingMessage {
  userId: string;
  conversationId: string;
  /** A conversation this message starts is temporary. */
  temporary?: boolean;
}

export interface SaveMessageResult {
  message: Message;
  /** False when the same message was already stored (an idempotent repeat). */
  created: boolean;
}

/** POST /api/chat/saveMessage: one message, stored in one atomic step (no transaction needed). */
export class SaveMessage {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  execute({ userId, conversationId, temporary, ...incoming }: SaveMessageInput): Promise<SaveMessageResult> {
    const now = this.clock.now();
    const candidate = Conversation.create({ conversationId, userId, createdAt: now, temporary });
    return this.unitOfWork.run(
      async (repositories) => {
        const stored = await storeMessages(repositories, candidate, [incoming], { now, newId: () => this.ids.newId() });
        const message = stored.messages[0]!;
        return { message, created: stored.insertedIds.has(message.messageId) };
      },
      { atomic: false },
    );
  }
}

import type { Message } from '../../domain/message.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ContextMessage } from '../replies/start-turn.js';
import { messagesOf } from './conversation-items.js';
import { ownedConversation } from './owned.js';

/** POST /v1/conversations/{id}/items: messages added after the head, in order, all or none; the last becomes the head. */
export class AddConversationItems {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  execute(input: { userId: string; conversationId: string; items: ContextMessage[] }): Promise<Message[]> {
    return this.unitOfWork.run(async (r) => {
      const conversation = await ownedConversation(r, input.userId, input.conversationId);
      const messages = messagesOf(input.items, conversation, this.ids, this.clock);
      const appended = await r.messages.append(conversation, messages, { stamped: new Set(messages.map((m) => m.messageId)) });
      const placed = new Map(appended.inserted.map((i) => [i.messageId, i]));
      return messages.map((m) => {
        const stored = placed.get(m.messageId);
        return m.with({ parentId: stored?.parentId ?? null, createdAt: stored?.createdAt ?? m.createdAt });
      });
    });
  }
}

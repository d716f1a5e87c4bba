import { Conversation } from '../../domain/conversation.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { StringMetadata } from '../ports/response-repository.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ContextMessage } from '../replies/start-turn.js';
import { messagesOf, type ConversationView } from './conversation-items.js';

/** POST /v1/conversations: a new conversation of the user's, with its first items and its metadata, stored together. */
export class CreateConversation {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async execute(input: { userId: string; items: ContextMessage[]; metadata: StringMetadata }): Promise<ConversationView> {
    const conversation = Conversation.create({ conversationId: this.ids.newId(), userId: input.userId, createdAt: this.clock.now() });
    const messages = messagesOf(input.items, conversation, this.ids, this.clock);
    return this.unitOfWork.run(async (r) => {
      const appended = await r.messages.append(conversation, messages);
      if (Object.keys(input.metadata).length > 0) await r.responses.saveConversationMetadata(conversation.conversationId, input.metadata);
      return { conversation: appended.conversation ?? conversation, metadata: input.metadata };
    });
  }
}

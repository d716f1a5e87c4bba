import type { StringMetadata } from '../ports/response-repository.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ConversationView } from './conversation-items.js';
import { ownedConversation } from './owned.js';

/**
 * GET /v1/conversations/{id}, and POST to it with `metadata`: a conversation of the user's (made
 * by either API: the same conversation) with its OpenAI metadata, `{}` when it has none.
 */
export class RetrieveConversation {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  execute(input: { userId: string; conversationId: string }): Promise<ConversationView> {
    return this.unitOfWork.run(
      async (r) => {
        const conversation = await ownedConversation(r, input.userId, input.conversationId);
        return { conversation, metadata: (await r.responses.conversationMetadata(conversation.conversationId)) ?? {} };
      },
      { atomic: false },
    );
  }

  /** Replaces the conversation's metadata. */
  update(input: { userId: string; conversationId: string; metadata: StringMetadata }): Promise<ConversationView> {
    return this.unitOfWork.run(async (r) => {
      const conversation = await ownedConversation(r, input.userId, input.conversationId);
      await r.responses.saveConversationMetadata(conversation.conversationId, input.metadata);
      return { conversation, metadata: input.metadata };
    });
  }
}

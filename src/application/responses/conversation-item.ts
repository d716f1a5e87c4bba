import type { Message } from '../../domain/message.js';
import { ItemNotFoundError } from '../../domain/response-errors.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ConversationView } from './conversation-items.js';
import { ownedConversation } from './owned.js';

/**
 * GET and DELETE /v1/conversations/{id}/items/{item_id}: one message of the conversation (of any
 * branch). Deleting it keeps the tree whole: its children follow its parent, and a deleted head
 * moves to the nearest message left on its path.
 */
export class ConversationItem {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  execute(input: { userId: string; conversationId: string; itemId: string }): Promise<Message> {
    return this.unitOfWork.run(
      async (r) => {
        await ownedConversation(r, input.userId, input.conversationId);
        const item = await r.messages.findById(input.itemId);
        if (!item || item.conversationId !== input.conversationId) throw new ItemNotFoundError(input.itemId);
        return item;
      },
      { atomic: false },
    );
  }

  /** Deletes the item; answers the conversation, as OpenAI's does. */
  delete(input: { userId: string; conversationId: string; itemId: string }): Promise<ConversationView> {
    return this.unitOfWork.run(async (r) => {
      const conversation = await ownedConversation(r, input.userId, input.conversationId);
      const { deleted } = await r.messages.deleteOwned(conversation.conversationId, input.userId, [input.itemId]);
      if (deleted === 0) throw new ItemNotFoundError(input.itemId);
      return { conversation, metadata: (await r.responses.conversationMetadata(conversation.conversationId)) ?? {} };
    });
  }
}

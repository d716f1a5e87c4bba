import type { MessagePage, MessagePosition, SortOrder } from '../ports/message-repository.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';

export interface LoadMessagesInput {
  userId: string;
  conversationId: string;
  limit: number;
  order: SortOrder;
  /** Where the previous page ended; null for the first page. */
  after: MessagePosition | null;
}

/** POST /api/chat/loadMessages: one page of a conversation, keyset-paginated. */
export class LoadMessages {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  execute(input: LoadMessagesInput): Promise<MessagePage> {
    return this.unitOfWork.run(
      async (repositories) => {
        const { userId, conversationId, order, limit, after } = input;
        const { conversation, page } = await repositories.messages.pageOwned(conversationId, userId, order, limit, after);
        conversation?.assertOwnedBy(userId);
        return page;
      },
      { atomic: false },
    );
  }
}

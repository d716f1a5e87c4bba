import type { ConversationPage, ConversationPosition } from '../ports/conversation-repository.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';

export interface ListConversationsInput {
  userId: string;
  limit: number;
  /** Where the previous page ended; null for the first page. */
  after: ConversationPosition | null;
}

/** GET /api/chat/conversations: a user's conversations, most recently active first. */
export class ListConversations {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  execute(input: ListConversationsInput): Promise<ConversationPage> {
    return this.unitOfWork.run((repositories) => repositories.conversations.listByUser(input.userId, input.limit, input.after), { atomic: false });
  }
}

import type { ConversationSummary } from '../ports/conversation-repository.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import { decodeCursor, encodeCursor } from '../services/cursor.js';

export interface ListConversationsInput {
  userId: string;
  limit: number;
  cursor?: string;
}

export interface ConversationList {
  conversations: ConversationSummary[];
  nextCursor: string | null;
}

/** GET /api/chat/conversations: a user's conversations, most recently active first. */
export class ListConversations {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  execute(input: ListConversationsInput): Promise<ConversationList> {
    const scope = `conversations:${input.userId}`;
    const after = input.cursor === undefined ? null : decodeCursor(input.cursor, scope, 'string');
    return this.unitOfWork.run(async (repositories) => {
      const position = after ? { activeAt: new Date(after[0]), conversationId: after[1] } : null;
      const page = await repositories.conversations.listByUser(input.userId, input.limit, position);
      const nextCursor = page.next ? encodeCursor(scope, [page.next.activeAt.getTime(), page.next.conversationId]) : null;
      return { conversations: page.items, nextCursor };
    });
  }
}

import type { Message } from '../../domain/message.js';
import type { SortOrder } from '../ports/message-repository.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import { findOwnedConversation } from '../services/conversation-access.js';
import { decodeCursor, encodeCursor } from '../services/cursor.js';

export interface LoadMessagesInput {
  userId: string;
  conversationId: string;
  limit: number;
  order: SortOrder;
  cursor?: string;
}

export interface MessageList {
  messages: Message[];
  nextCursor: string | null;
}

/** POST /api/chat/loadMessages: one page of a conversation, keyset-paginated. */
export class LoadMessages {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  execute(input: LoadMessagesInput): Promise<MessageList> {
    const scope = `messages:${input.order}:${input.conversationId}`;
    const after = input.cursor === undefined ? null : decodeCursor(input.cursor, scope, 'number');
    return this.unitOfWork.run(async (repositories) => {
      const conversation = await findOwnedConversation(repositories, input.conversationId, input.userId);
      if (!conversation) return { messages: [], nextCursor: null };
      const position = after ? { createdAt: new Date(after[0]), seq: after[1] } : null;
      const page = await repositories.messages.page(input.conversationId, input.order, input.limit, position);
      const nextCursor = page.next ? encodeCursor(scope, [page.next.createdAt.getTime(), page.next.seq]) : null;
      return { messages: page.messages, nextCursor };
    });
  }
}

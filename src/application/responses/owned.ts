import { ConversationNotFoundError } from '../../domain/errors.js';
import type { Conversation } from '../../domain/conversation.js';
import type { Message } from '../../domain/message.js';
import { ResponseNotFoundError } from '../../domain/response-errors.js';
import type { Repositories } from '../ports/unit-of-work.js';

/** The assistant reply `responseId` of `userId`, else ResponseNotFoundError (404), naming `field` when a request field named it. */
export async function ownedReply(r: Repositories, userId: string, responseId: string, field: string | null = null): Promise<Message> {
  const reply = await r.messages.findById(responseId);
  if (!reply || reply.role !== 'assistant' || reply.userId !== userId) throw new ResponseNotFoundError(responseId, field);
  return reply;
}

/** `userId`'s conversation, else ConversationNotFoundError (404: unknown, or another user's), naming `field` when a request field named it. */
export async function ownedConversation(r: Repositories, userId: string, conversationId: string, field: string | null = null): Promise<Conversation> {
  const conversation = await r.conversations.findById(conversationId);
  if (!conversation?.isOwnedBy(userId)) throw new ConversationNotFoundError(conversationId, field);
  return conversation;
}

import { ConversationNotFoundError } from '../../domain/errors.js';
import type { Conversation } from '../../domain/conversation.js';
import type { Message } from '../../domain/message.js';
import { ResponseNotFoundError } from '../../domain/response-errors.js';
import type { ResponseEnding } from '../ports/response-repository.js';
import type { Repositories } from '../ports/unit-of-work.js';

/** The assistant reply `responseId` of `userId`, else ResponseNotFoundError (404), naming `field` when a request field named it. */
export async function ownedReply(r: Repositories, userId: string, responseId: string, field: string | null = null): Promise<Message> {
  const reply = await r.messages.findById(responseId);
  if (!reply || !isReplyOf(reply, userId)) throw new ResponseNotFoundError(responseId, field);
  return reply;
}

/** A response of a user's: its reply, or, when the reply was removed before its first piece, its ending. */
export type OwnedResponse = { reply: Message; ending: null } | { reply: null; ending: ResponseEnding };

/** The response `responseId` of `userId` (ownedReply, or its ending), else ResponseNotFoundError (404). */
export async function ownedResponse(r: Repositories, userId: string, responseId: string): Promise<OwnedResponse> {
  const reply = await r.messages.findById(responseId);
  if (reply && isReplyOf(reply, userId)) return { reply, ending: null };
  const ending = reply ? null : await r.responses.findEnding(responseId);
  if (!ending || ending.userId !== userId) throw new ResponseNotFoundError(responseId, null);
  return { reply: null, ending };
}

const isReplyOf = (message: Message, userId: string) => message.role === 'assistant' && message.userId === userId;

/** `userId`'s conversation, else ConversationNotFoundError (404: unknown, or another user's), naming `field` when a request field named it. */
export async function ownedConversation(r: Repositories, userId: string, conversationId: string, field: string | null = null): Promise<Conversation> {
  const conversation = await r.conversations.findById(conversationId);
  if (!conversation?.isOwnedBy(userId)) throw new ConversationNotFoundError(conversationId, field);
  return conversation;
}

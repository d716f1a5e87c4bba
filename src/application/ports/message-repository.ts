import type { Conversation } from '../../domain/conversation.js';
import type { Message } from '../../domain/message.js';

export type SortOrder = 'asc' | 'desc';

/**
 * A message's place in its conversation's one stable order: `createdAt`, then insertion
 * order (`seq`, assigned by the store when the message is inserted).
 */
export interface MessagePosition {
  createdAt: Date;
  seq: number;
}

export interface MessagePage {
  messages: Message[];
  /** Position of the last message returned, when more messages follow in that order. */
  next: MessagePosition | null;
}

export interface AppendResult {
  /** The conversation as stored after the call (its owner may be another user: then nothing was written), or null. */
  conversation: Conversation | null;
  /** The stored messages among the ids sent. When there is any, nothing was written. */
  taken: Message[];
  /** The ids this call stored. */
  inserted: string[];
}

export interface OwnedPage {
  /** The conversation, whoever owns it, or null when it is unknown (the page is then empty). */
  conversation: Conversation | null;
  page: MessagePage;
}

export interface MessageRepository {
  /**
   * In one atomic step: claims the conversation (creating it, and its user, if new) and stores
   * the messages in the given order — but writes nothing at all when the conversation belongs
   * to another user or when any of the ids is already stored (those are returned as `taken`,
   * for the caller to compare). An id stored concurrently may be neither inserted nor taken:
   * asking again then reports it as taken.
   */
  append(conversation: Conversation, messages: Message[]): Promise<AppendResult>;
  /** The conversation and one page of it, read together; the page is empty for another user's conversation too. */
  pageOwned(conversationId: string, userId: string, order: SortOrder, limit: number, after: MessagePosition | null): Promise<OwnedPage>;
  /**
   * Deletes the listed messages (or all, when `messageIds` is null) of the conversation if
   * `userId` owns it; returns the conversation (whoever owns it) and how many were deleted.
   */
  deleteOwned(conversationId: string, userId: string, messageIds: string[] | null): Promise<{ conversation: Conversation | null; deleted: number }>;
  findById(messageId: string): Promise<Message | null>;
  /** The assistant message stored as the reply to a user message. */
  findReplyTo(userMessageId: string): Promise<Message | null>;
  /** How many messages the conversation holds. */
  count(conversationId: string): Promise<number>;
}

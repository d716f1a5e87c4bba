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

export interface MessageRepository {
  findById(messageId: string): Promise<Message | null>;
  /** The stored messages among `messageIds`, in no particular order. */
  findByIds(messageIds: string[]): Promise<Message[]>;
  /** The assistant message stored as the reply to a user message. */
  findReplyTo(userMessageId: string): Promise<Message | null>;
  /**
   * Inserts messages in the given order, skipping any whose id is already stored;
   * returns the ids actually inserted.
   */
  insert(messages: Message[]): Promise<string[]>;
  /** One page after `after` (exclusive), reading only that page. */
  page(conversationId: string, order: SortOrder, limit: number, after: MessagePosition | null): Promise<MessagePage>;
  count(conversationId: string): Promise<number>;
  /** Deletes those of `messageIds` that belong to the conversation; returns how many. */
  deleteByIds(conversationId: string, messageIds: string[]): Promise<number>;
  deleteAll(conversationId: string): Promise<number>;
}

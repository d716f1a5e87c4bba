import type { Conversation } from '../../domain/conversation.js';

export interface ConversationSummary {
  conversation: Conversation;
  title: string | null;
  lastMessageAt: Date | null;
  messageCount: number;
}

/** Where a page of a user's conversations ends: most recently active first. */
export interface ConversationPosition {
  activeAt: Date;
  conversationId: string;
}

export interface ConversationPage {
  items: ConversationSummary[];
  /** Position of the last item, when more items follow it. */
  next: ConversationPosition | null;
}

export interface ConversationRepository {
  findById(conversationId: string): Promise<Conversation | null>;
  listByUser(userId: string, limit: number, after: ConversationPosition | null): Promise<ConversationPage>;
}

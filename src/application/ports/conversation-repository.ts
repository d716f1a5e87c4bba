import type { Conversation, ConversationChanges, TitleSource } from '../../domain/conversation.js';
import type { ConversationName } from './reply-repository.js';

/** A conversation as its owner sees it in a list or by itself. */
export interface ConversationSummary {
  conversation: Conversation;
  title: string | null;
  titleSource: TitleSource | null;
  /** The last write to it (its messages, sessions); what retention and temporary conversations count from. */
  activeAt: Date;
  lastMessageAt: Date | null;
  messageCount: number;
  headId: string | null;
  pinned: boolean;
  archived: boolean;
}

/** Where a page of a user's conversations ends: pinned first, then most recently active. */
export interface ConversationPosition {
  pinned: boolean;
  activeAt: Date;
  conversationId: string;
}

export interface ConversationPage {
  items: ConversationSummary[];
  /** Position of the last item, when more items follow it. */
  next: ConversationPosition | null;
}

/** How many rows a deletion removed. */
export interface Deleted {
  conversations: number;
  messages: number;
  sessions: number;
}

/** Conversations whose last activity is older than these are expired (null: none of that kind). */
export interface Expiry {
  /** Temporary conversations with no activity since then. */
  temporaryBefore: Date | null;
  /** Any conversation with no activity since then (retention). */
  retainedBefore: Date | null;
  /** At most this many conversations in one call. */
  batch: number;
}

export interface ConversationRepository {
  findById(conversationId: string): Promise<Conversation | null>;
  /** The conversation, whoever owns it (the caller checks), or null. */
  summary(conversationId: string): Promise<ConversationSummary | null>;
  /** A user's conversations, pinned first, then most recently active; archived ones only when asked; never temporary ones. */
  listByUser(userId: string, limit: number, after: ConversationPosition | null, archived: boolean): Promise<ConversationPage>;
  /** Applies a user's changes to their conversation; null when it is unknown or another user's (nothing changed). */
  update(conversationId: string, userId: string, changes: ConversationChanges): Promise<ConversationSummary | null>;
  /** Names the conversation unless its user did (a generated title replaces one made from the first message). */
  nameUnlessUserDid(conversationId: string, title: string, source: TitleSource): Promise<boolean>;
  /**
   * Of each reply (conversation and reply ids), the title of its conversation when that reply
   * named it (ReplyRepository.finishAndName) and its user has not renamed it since: what the end of a
   * first turn's stream shows on every instance. Absent from the map: not named by that reply.
   */
  namedBy(replies: readonly { conversationId: string; replyId: string }[]): Promise<Map<string, ConversationName>>;
  /** Deletes the conversation of `userId` with its messages and sessions; zeros when unknown or another user's. */
  deleteOwned(conversationId: string, userId: string): Promise<Deleted>;
  /** Deletes everything of a user: their conversations (with messages and sessions) and the user. */
  eraseUser(userId: string): Promise<Deleted & { users: number }>;
  /**
   * Deletes a batch of expired conversations, each exactly once whatever else sweeps at the same
   * time (another instance's sweep skips what this one holds); returns how many of each kind.
   */
  sweepExpired(expiry: Expiry): Promise<{ temporary: number; retained: number; messages: number }>;
}

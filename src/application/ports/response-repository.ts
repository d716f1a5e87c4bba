import type { Conversation } from '../../domain/conversation.js';
import type { Metadata } from '../../domain/metadata.js';

/** String pairs, as OpenAI's `metadata` holds (at most 16; keys ≤ 64, values ≤ 512 code points). */
export type StringMetadata = Record<string, string>;

/**
 * What a request of OpenAI's Responses API said beyond its messages, kept beside its reply (the
 * response is the reply: same id). A reply made by the native API has none.
 */
export interface ResponseRecord {
  /** The reply's message id. */
  responseId: string;
  /** The model the request named (the reply's metadata names the one that answered). */
  model: string;
  instructions: string | null;
  previousResponseId: string | null;
  background: boolean;
  metadata: StringMetadata;
  /** The messages the request added before the reply, in order: its input items. */
  inputIds: string[];
  maxOutputTokens: number | null;
  temperature: number | null;
  /** The model's input as estimated when it was asked, in tokens: usage, where the model counts none. */
  inputTokens: number;
}

/**
 * A reply that ended before its first piece (stopped, failed, interrupted). Such a reply is
 * removed, as every empty one (no message has empty text once finished); its ending is kept in its
 * place, so the response is still found, `cancelled` or `failed`, and a follower elsewhere learns
 * how it ended, until it is deleted or its conversation goes.
 */
export interface ResponseEnding {
  responseId: string;
  conversationId: string;
  userId: string;
  /** The question it answered. */
  replyTo: string | null;
  createdAt: Date;
  /** Why it ended: `cancelled`, `error`, `interrupted`. */
  finishReason: string;
  /** The reply's metadata as it ended (`model`, and `error` for a failure). */
  metadata: Metadata;
  /** What the Responses API's request said; null for a reply of the native API. */
  record: ResponseRecord | null;
}

export interface ConversationDeletion {
  /** The conversation as it was stored, whoever owns it (another user's: nothing was deleted), or null. */
  conversation: Conversation | null;
  messages: number;
  sessions: number;
}

/**
 * What the OpenAI face of the service keeps beyond the native rows: each response's request and
 * each conversation's metadata. Both go with what they belong to: a deleted reply takes its record
 * along, a deleted conversation its metadata. Every method is atomic by itself.
 */
export interface ResponseRepository {
  /** Stores (or replaces) the record of a stored reply; nothing when the reply is not stored. */
  save(record: ResponseRecord): Promise<void>;
  findById(responseId: string): Promise<ResponseRecord | null>;
  /** The ending of a reply removed before its first piece (ReplyRepository.finish). */
  findEnding(responseId: string): Promise<ResponseEnding | null>;
  /** Deletes that ending, if `userId`'s; whether there was one. */
  deleteEnding(responseId: string, userId: string): Promise<boolean>;
  /** A conversation's OpenAI metadata; null when none was stored (then it is `{}`). */
  conversationMetadata(conversationId: string): Promise<StringMetadata | null>;
  /** Stores (or replaces) a stored conversation's metadata; nothing when the conversation is not stored. */
  saveConversationMetadata(conversationId: string, metadata: StringMetadata): Promise<void>;
  /**
   * Deletes the conversation whole, if `userId` owns it: its messages (and their response records),
   * its sessions, its metadata and the conversation itself. The user stays.
   */
  deleteConversation(conversationId: string, userId: string): Promise<ConversationDeletion>;
}

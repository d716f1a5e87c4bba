import type { Conversation } from '../../domain/conversation.js';
import type { Message } from '../../domain/message.js';

export interface TurnStart {
  /** The conversation of the turn (created, with its user, if new). */
  conversation: Conversation;
  userMessage: Message;
  /** The reply to open: in progress, empty, replying to `userMessage`. */
  reply: Message;
  /** How many of the conversation's latest finished messages to read as the model's history. */
  historyLimit: number;
}

export interface TurnRecord {
  /** The conversation as stored (another user's: then nothing was written), or null. */
  conversation: Conversation | null;
  /** The user message as already stored, when its id was taken: then nothing was written. */
  taken: Message | null;
  /** With `taken`: the reply stored for it, if any. */
  takenReply: Message | null;
  /** The conversation's latest finished messages, newest first, as they were before this call. */
  history: Message[];
  /**
   * Whether the user message and the reply were stored by this call. Neither this nor `taken`
   * means the message id was stored concurrently: asking again reports it as taken.
   */
  opened: boolean;
}

/**
 * Replies as they are written. Every write is announced to the reply's watchers on every
 * instance (ReplyNotifications). Each method is atomic by itself.
 */
export interface ReplyRepository {
  /**
   * In one step: claims the conversation, stores the user's message and opens its reply, and
   * reads the history — unless the conversation is another user's or the message id is taken.
   */
  begin(start: TurnStart): Promise<TurnRecord>;
  /**
   * Opens `reply` for the user message it answers, replacing a reply that was cut short
   * (cancelled, error, interrupted). Null when another reply, in progress or answered, stands.
   */
  reopen(reply: Message): Promise<Message | null>;
  /** Adds `text` to a reply in progress (empty text: a sign of life). False when it is no longer in progress. */
  advance(replyId: string, text: string, at: Date): Promise<boolean>;
  /**
   * Finishes a reply in progress with its whole text and metadata; an empty reply is removed.
   * Returns what is stored afterwards: this reply, the one someone else finished first, or null.
   */
  finish(reply: Message, at: Date): Promise<Message | null>;
  /** The reply in progress of a conversation, if any (the latest). */
  findInProgress(conversationId: string): Promise<Message | null>;
  /**
   * Finishes as "interrupted" every reply that is stale (domain/reply.ts `isStale`: in progress,
   * no sign of life since `before`); empty ones are removed. Returns how many.
   */
  interruptStale(before: Date, at: Date): Promise<number>;
}

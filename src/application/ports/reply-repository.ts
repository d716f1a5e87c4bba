import type { Conversation, TitleSource } from '../../domain/conversation.js';
import type { EarlierMessage } from '../../domain/chat-history.js';
import type { Message } from '../../domain/message.js';

/** A title for a conversation that has none yet: stored with a finished reply (the first one). */
export interface ConversationName {
  title: string;
  source: TitleSource;
}

/**
 * A turn's messages (its context, the question, the reply) carry one time, read before the store's
 * step: the store dates them as `append` does those `stamped` (AppendOptions), never older than
 * the message the turn follows, written meanwhile perhaps.
 */
export interface TurnStart {
  /** The conversation of the turn (created, with its user, if new). */
  conversation: Conversation;
  /** The question: after its `parentId` (which must be a message of the conversation), else after `parentIfStored`, else after the head. */
  userMessage: Message;
  /**
   * Messages the turn stores before the question, in order (OpenAI's input items): the first is
   * placed as the question would be, each next one after the one before, the question after the
   * last. They are stored with the question or not at all, and are history to the model.
   */
  context?: Message[];
  /** A parent to follow only if it is a stored message of the conversation (the AI SDK's message before the new one). */
  parentIfStored?: string | null;
  /** The first message sent (the first of `context`, else the question) has no parent: it starts a tree of its own (an edit of a conversation's first message). */
  root?: boolean;
  /** The reply to open: in progress, empty, replying to `userMessage` (its parent); it becomes the head. */
  reply: Message;
  /** How many finished messages of the question's branch (its path, newest first) to read as the model's history. */
  historyLimit: number;
}

/** How far up its path a reply stored without its question (saved, imported) is followed to the user message it answers. */
export const REGENERATE_LOOKUP_STEPS = 100;

/** What a turn stores, in order (its context, the question, the reply), and the one of them placed with no parent, when `root`. */
export function turnMessages(start: TurnStart): { sent: Message[]; roots: ReadonlySet<string> | undefined } {
  const sent = [...(start.context ?? []), start.userMessage, start.reply];
  return { sent, roots: start.root ? new Set([sent[0]!.messageId]) : undefined };
}

export interface RegenerateStart {
  conversation: Conversation;
  /**
   * A user message, or a reply: then the user message it answers is answered again (for a reply
   * stored without it, the nearest user message above it, at most REGENERATE_LOOKUP_STEPS up). A
   * system message answers nothing.
   */
  targetId: string;
  /** The new reply (its `replyTo` and `parentId` are set by the store to the question). */
  reply: Message;
  historyLimit: number;
}

export interface RegenerateRecord {
  /** The conversation as stored, whoever owns it (another user's: nothing was written), or null. */
  conversation: Conversation | null;
  /** The user message answered again, or null when the target is none (nothing written). */
  question: Message | null;
  /** A reply to the question still in progress: then nothing was written. */
  running: Message | null;
  /** The stored reply, when it was opened: a sibling of the earlier replies, and the head. */
  opened: Message | null;
  /** The finished messages of the question's path above it, newest first, bounded (what the model's history needs of each). */
  history: EarlierMessage[];
}

export interface TurnRecord {
  /** The conversation as stored (another user's: then nothing was written), or null. */
  conversation: Conversation | null;
  /** The user message as already stored, when its id was taken: then nothing was written. */
  taken: Message | null;
  /** With `taken`: the reply stored for it, if any. */
  takenReply: Message | null;
  /** The finished messages of the question's branch above it (above its context), newest first, as they were before this call (what the model's history needs of each). */
  history: EarlierMessage[];
  /** Whether the question's `parentId` was no message of the conversation: then nothing was written. */
  unknownParent: boolean;
  /** The user message as stored by this call (its parent resolved, its time as stored: the turn's other messages have the same), when opened. */
  stored: Message | null;
  /** Whether the conversation has a title already (its first turn names it otherwise). */
  titled: boolean;
  /**
   * Whether the user message and the reply were stored by this call. Neither this nor `taken`
   * means the message id was stored concurrently: asking again reports it as taken.
   */
  opened: boolean;
}

/** Text a reply in progress has grown by since its last write. */
export interface ReplyAdvance {
  replyId: string;
  /**
   * Where `text` starts, in code points: the stored text is cut there before `text` is added, so a
   * write sent again (its answer lost, though it was stored) replaces itself instead of adding twice.
   */
  from: number;
  text: string;
}

/**
 * Replies as they are written. Each method is atomic by itself. Writes announce nothing: the
 * producer pushes a reply's news to its followers (ReplyNotifications).
 */
export interface ReplyRepository {
  /**
   * In one step: claims the conversation, stores the user's message and opens its reply, and
   * reads the history — unless the conversation is another user's or the message id is taken.
   */
  begin(start: TurnStart): Promise<TurnRecord>;
  /** In one step: opens another reply to an answered user message, beside the earlier ones, and reads its history. */
  regenerate(start: RegenerateStart): Promise<RegenerateRecord>;
  /**
   * Opens `reply` for the user message it answers, replacing its latest reply when that was cut short
   * (cancelled, error, interrupted). Null when another reply, in progress or answered, stands.
   */
  reopen(reply: Message): Promise<Message | null>;
  /**
   * In one step, adds to each reply in progress its `text` (empty: a sign of life), `at` being
   * its latest sign of life; the replies are distinct. Returns the ids of those still in
   * progress (the rest were finished by someone else, or are gone).
   */
  advance(advances: readonly ReplyAdvance[], at: Date): Promise<string[]>;
  /**
   * Finishes a reply in progress with its whole text and metadata; an empty reply is removed (its
   * ending is kept in its place: ResponseRepository.findEnding).
   * Returns what is stored afterwards: this reply, the one someone else finished first, or null.
   */
  finish(reply: Message, at: Date): Promise<Message | null>;
  /**
   * `finish` of a conversation's first answer: a conversation without a title takes `title` with it
   * (ConversationRepository.namedBy); says whether it did (not when its user named it meanwhile).
   */
  finishAndName(reply: Message, at: Date, title: ConversationName): Promise<{ message: Message | null; named: boolean }>;
  /** The replies in progress of a user, in every conversation. */
  inProgressOf(userId: string): Promise<Message[]>;
  /** The reply in progress of a conversation, if any (the latest). */
  findInProgress(conversationId: string): Promise<Message | null>;
  /**
   * Finishes as "interrupted" every reply that is stale (domain/reply.ts `isStale`: in progress,
   * no sign of life since `before`); empty ones are removed, as by `finish`. Returns how many.
   */
  interruptStale(before: Date, at: Date): Promise<number>;
  /**
   * A reply finished as "interrupted" (by `interruptStale`) while its text went on where the store
   * could not see it (its producer cut off from the database, or a follower holding what the
   * producer published before it died): `text`, when it is longer and starts with the stored text,
   * replaces it, so what streams delivered is kept. Returns the reply as stored afterwards (null: gone).
   */
  extendInterrupted(replyId: string, text: string): Promise<Message | null>;
}

import type { Conversation, TitleSource } from '../../domain/conversation.js';
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
  /** The messages this call stored, each with the parent it was given (a null parent resolved to the head) and its time as stored (AppendOptions.stamped). */
  inserted: { messageId: string; parentId: string | null; createdAt: Date }[];
  /** Ids of messages whose `parentId` is no message of the conversation (nor an earlier one sent): then nothing was written. */
  unknownParents: string[];
}

export interface AppendOptions {
  /** Messages placed with no parent: each starts a tree of its own beside the first message, as an edit of the first message does. */
  roots?: ReadonlySet<string>;
  /**
   * Messages dated by the service (no client gave their time). Their time was read before this
   * step, and a message they follow may have been written since: each is stored no earlier than
   * the latest stored message any message of the call follows (at that message's time, when its
   * own is earlier), so it is never older than its parent. The others keep the time they carry.
   */
  stamped?: ReadonlySet<string>;
}

export interface OwnedPage {
  /** The conversation, whoever owns it, or null when it is unknown (the page is then empty). */
  conversation: Conversation | null;
  /** The last message of its active branch. */
  headId: string | null;
  page: MessagePage;
}

/** A message's place among the messages that share its parent, in creation order. */
export interface Siblings {
  count: number;
  /** From 0. */
  index: number;
  previousId: string | null;
  nextId: string | null;
}

/** Where a page of a branch ended: the branch (its last message) and the last message returned. */
export interface BranchPosition {
  leafId: string;
  afterId: string;
  /**
   * The parent the last message returned had (null: it was the first of the branch); undefined
   * when not known. Deleting a message splices it out of its branch, its children moving to its
   * parent: should the last message returned be deleted before the next page is asked for, the
   * page goes on from here, so it neither skips nor repeats a message.
   */
  afterParentId?: string | null;
}

export interface BranchQuery {
  /** The branch: the path from the first message to this one; null for the active branch (to the head). */
  leafId: string | null;
  order: SortOrder;
  limit: number;
  /** Where the previous page ended (it names its branch, whatever `leafId` says). */
  after: BranchPosition | null;
}

export interface BranchPage {
  conversation: Conversation | null;
  headId: string | null;
  /** False when `leafId` is no message of the conversation. */
  leafFound: boolean;
  messages: { message: Message; siblings: Siblings }[];
  next: BranchPosition | null;
}

/** A whole conversation as an import writes it: its own ids, parents, times, title and head. */
export interface ImportedConversation {
  conversation: Conversation;
  title: string | null;
  titleSource: TitleSource | null;
  pinned: boolean;
  archived: boolean;
  /** Its last activity (at least its creation). */
  activeAt: Date;
  /** Each after its parent (`parentId` null: a first message; never "after the head"). */
  messages: Message[];
  /** The last message of the active branch; null: the last message given. */
  headId: string | null;
}

export interface ImportOutcome {
  /** `created`; `existing` (the user's own: only the messages it lacked were added, and then the head moved); `foreign` (another user's: nothing written). */
  outcome: 'created' | 'existing' | 'foreign';
  created: number;
  skipped: number;
  /** Ids stored in another conversation: when there is any, nothing was written. */
  conflicts: string[];
}

/**
 * A conversation's messages form a tree through `parentId`; its head is the last message of the
 * active branch. Every method is atomic by itself.
 */
export interface MessageRepository {
  /**
   * In one atomic step: claims the conversation (creating it, and its user, if new) and stores
   * the messages in the given order, each after its `parentId` (null: after the message before
   * it, or the head for the first; a message listed in `roots` has no parent), at its time (later
   * for one `stamped`: AppendOptions), and makes the last one the head — but writes nothing at all when the
   * conversation belongs to another user, when any of the ids is already stored (those are
   * returned as `taken`, for the caller to compare) or when a parent is unknown. An id stored
   * concurrently may be neither inserted nor taken: asking again then reports it as taken.
   */
  append(conversation: Conversation, messages: Message[], options?: AppendOptions): Promise<AppendResult>;
  /** The conversation and one page of all its messages (every branch) in the conversation order; empty for another user's. */
  pageOwned(conversationId: string, userId: string, order: SortOrder, limit: number, after: MessagePosition | null): Promise<OwnedPage>;
  /**
   * One page of a branch (`asc` from its first message, `desc` from its last up), each message
   * with its siblings; empty for another user's conversation. The newest page costs the same
   * whatever the size of the tree.
   */
  pageBranch(conversationId: string, userId: string, query: BranchQuery): Promise<BranchPage>;
  /**
   * Makes the head the most recently created message among `messageId` and its descendants, if
   * `userId` owns the conversation and the message is in it (`found`).
   */
  switchBranch(conversationId: string, userId: string, messageId: string): Promise<{ conversation: Conversation | null; found: boolean; headId: string | null }>;
  /**
   * Deletes the listed messages (with their descendants when `descendants`; all, when
   * `messageIds` is null) of the conversation if `userId` owns it: the children of a deleted
   * message follow its nearest surviving ancestor, and a deleted head moves to the nearest
   * message left on its path. Returns the conversation (whoever owns it) and how many were deleted.
   */
  deleteOwned(conversationId: string, userId: string, messageIds: string[] | null, descendants?: boolean): Promise<{ conversation: Conversation | null; deleted: number }>;
  /**
   * Writes an imported conversation with its ids, parents, times and title, and sets its head —
   * or adds to the same user's conversation of that id the messages it lacks (skipping stored
   * ones). Writes nothing for another user's conversation, nor when an id is stored in another
   * conversation. Atomic within one unit of work (the import runs each conversation in one).
   */
  importConversation(imported: ImportedConversation): Promise<ImportOutcome>;
  findById(messageId: string): Promise<Message | null>;
  /** The messages of these ids that exist, in any order. */
  findByIds(messageIds: readonly string[]): Promise<Message[]>;
  /** The latest assistant message stored as a reply to a user message. */
  findReplyTo(userMessageId: string): Promise<Message | null>;
  /** How many messages the conversation holds. */
  count(conversationId: string): Promise<number>;
}

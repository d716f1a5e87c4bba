import type {
  AppendOptions,
  AppendResult,
  BranchPage,
  BranchQuery,
  ImportedConversation,
  ImportOutcome,
  MessagePage,
  MessagePosition,
  MessageRepository,
  OwnedPage,
  Siblings,
  SortOrder,
} from '../../../application/ports/message-repository.js';
import type { Conversation } from '../../../domain/conversation.js';
import type { Message } from '../../../domain/message.js';
import { InMemoryConversationRepository } from './in-memory-conversation-repository.js';
import { childrenKey, compareEntries, firstAfter, type MemoryStore, type StoredMessage } from './memory-store.js';
import type { UndoLog } from './undo-log.js';

const positionOf = (entry: StoredMessage): MessagePosition => ({ createdAt: entry.message.createdAt, seq: entry.seq });

const latest = (times: Date[]): Date | null => times.reduce((a: Date | null, b) => (a === null || b > a ? b : a), null);

/**
 * Messages in the memory store, with the same answers as PostgreSQL's: a conversation is a
 * tree through `parentId` (children indexed per parent, in creation order), branches read by
 * walking parent pointers. Every change records its undo step.
 */
export class InMemoryMessageRepository implements MessageRepository {
  constructor(
    private readonly store: MemoryStore,
    private readonly undo: UndoLog,
  ) {}

  async findById(messageId: string): Promise<Message | null> {
    return this.store.messages.get(messageId)?.message ?? null;
  }

  async findByIds(messageIds: readonly string[]): Promise<Message[]> {
    return [...new Set(messageIds)].flatMap((id) => this.store.messages.get(id)?.message ?? []);
  }

  async findReplyTo(userMessageId: string): Promise<Message | null> {
    const replyId = this.store.replies.get(userMessageId)?.at(-1);
    return replyId === undefined ? null : (this.store.messages.get(replyId)?.message ?? null);
  }

  append(conversation: Conversation, messages: Message[], options: AppendOptions = {}): Promise<AppendResult> {
    return this.place(conversation, messages, options);
  }

  /** For the memory store's own use: `append`, the first message after `parentIfStored` when that is a stored message of the conversation (a reply's question, say). */
  async place(conversation: Conversation, messages: Message[], { roots, stamped, parentIfStored = null }: AppendOptions & { parentIfStored?: string | null }): Promise<AppendResult> {
    const taken = messages.flatMap((m) => this.store.messages.get(m.messageId)?.message ?? []);
    const stored = this.store.conversations.get(conversation.conversationId);
    const existing = stored?.conversation ?? null;
    const unknownParents = messages
      .filter((m, i) => m.parentId !== null && !this.inConversation(m.parentId, conversation.conversationId) && !messages.slice(0, i).some((e) => e.messageId === m.parentId))
      .map((m) => m.messageId);
    if (taken.length > 0 || unknownParents.length > 0 || (existing && !existing.isOwnedBy(conversation.userId))) {
      return { conversation: existing, taken, inserted: [], unknownParents };
    }
    const head = stored?.headId ?? null;
    const hinted = parentIfStored !== null && this.inConversation(parentIfStored, conversation.conversationId) ? parentIfStored : null;
    const parented = messages.map((m, i) => (m.parentId !== null || roots?.has(m.messageId) ? m : m.with({ parentId: i === 0 ? (hinted ?? head) : messages[i - 1]!.messageId })));
    // The messages the service dated are never older than a stored message the call follows (AppendOptions.stamped).
    const floor = latest(parented.flatMap((m) => (m.parentId !== null && this.inConversation(m.parentId, conversation.conversationId) ? [this.store.messages.get(m.parentId)!.message.createdAt] : [])));
    const placed = parented.map((m) => (floor !== null && stamped?.has(m.messageId) && m.createdAt < floor ? m.with({ createdAt: floor }) : m));
    const conversations = new InMemoryConversationRepository(this.store, this.undo);
    const claimed = await conversations.claim(conversation);
    // Active until the latest of those at least, as in PostgreSQL (whose statements, racing, count on it).
    await conversations.touch(claimed.conversationId, latest([conversation.createdAt, ...placed.filter((m) => stamped?.has(m.messageId)).map((m) => m.createdAt)])!);
    const inserted = await this.insert(placed);
    // The last message inserted becomes the head (one not inserted never does).
    if (inserted.length > 0) this.moveHead(claimed.conversationId, inserted.at(-1)!);
    return {
      conversation: claimed,
      taken: [],
      inserted: placed.filter((m) => inserted.includes(m.messageId)).map((m) => ({ messageId: m.messageId, parentId: m.parentId, createdAt: m.createdAt })),
      unknownParents: [],
    };
  }

  async importConversation(imported: ImportedConversation): Promise<ImportOutcome> {
    const { conversation } = imported;
    const id = conversation.conversationId;
    const existing = this.store.conversations.get(id);
    if (existing && !existing.conversation.isOwnedBy(conversation.userId)) return { outcome: 'foreign', created: 0, skipped: 0, conflicts: [] };
    const outcome = existing ? 'existing' : 'created';
    const conflicts = imported.messages.filter((m) => { const e = this.store.messages.get(m.messageId); return e !== undefined && e.message.conversationId !== id; });
    if (conflicts.length > 0) return { outcome, created: 0, skipped: 0, conflicts: conflicts.map((m) => m.messageId) };
    const conversations = new InMemoryConversationRepository(this.store, this.undo);
    if (!existing) {
      await conversations.claim(conversation);
      // A new record: undoing the claim removes it whole, these fields with it.
      Object.assign(this.store.conversations.get(id)!, { title: imported.title, titleSource: imported.titleSource, pinned: imported.pinned, archived: imported.archived });
    }
    await conversations.touch(id, imported.activeAt);
    const inserted = await this.insert(imported.messages.filter((m) => !this.store.messages.has(m.messageId)));
    if (inserted.length > 0) this.moveHead(id, imported.headId ?? imported.messages.at(-1)!.messageId);
    return { outcome, created: inserted.length, skipped: imported.messages.length - inserted.length, conflicts: [] };
  }

  async pageOwned(conversationId: string, userId: string, order: SortOrder, limit: number, after: MessagePosition | null): Promise<OwnedPage> {
    const stored = this.store.conversations.get(conversationId);
    const conversation = stored?.conversation ?? null;
    if (!stored || !conversation?.isOwnedBy(userId)) return { conversation, headId: null, page: { messages: [], next: null } };
    return { conversation, headId: stored.headId, page: await this.page(conversationId, order, limit, after) };
  }

  async pageBranch(conversationId: string, userId: string, query: BranchQuery): Promise<BranchPage> {
    const stored = this.store.conversations.get(conversationId);
    const conversation = stored?.conversation ?? null;
    const none = { headId: null, leafFound: false, messages: [], next: null };
    if (!stored || !conversation?.isOwnedBy(userId)) return { conversation, ...none };
    const { order, limit, after } = query;
    const leafId = after?.leafId ?? query.leafId ?? stored.headId;
    const leafFound = query.leafId === null || after !== null || this.inConversation(query.leafId, conversationId);
    let path: StoredMessage[];
    // The page before's last message, deleted since: the page goes on from the parent it had (BranchPosition.afterParentId).
    const gone = after !== null && after.afterParentId !== undefined && !this.inConversation(after.afterId, conversationId);
    if (order === 'desc') {
      // Up from that message's parent (pathUp starts only from a message of this conversation).
      const start = !after ? leafId : gone ? (after.afterParentId ?? null) : (this.store.messages.get(after.afterId)?.message.parentId ?? null);
      path = this.pathUp(start, conversationId, limit + 1);
    } else {
      const whole = this.pathUp(leafId, conversationId, null).reverse();
      const anchor = gone ? (after!.afterParentId ?? null) : (after?.afterId ?? null);
      // No anchor: from the first message (the first page, or the first message of the branch was the one deleted).
      const from = anchor === null ? -1 : whole.findIndex((e) => e.message.messageId === anchor);
      path = anchor !== null && from === -1 ? [] : whole.slice(from + 1, from + 1 + limit + 1);
    }
    const shown = path.slice(0, limit);
    const last = shown.at(-1);
    return {
      conversation,
      headId: stored.headId,
      leafFound,
      messages: shown.map((entry) => ({ message: entry.message, siblings: this.siblingsOf(entry) })),
      next: path.length > limit && last && leafId !== null ? { leafId, afterId: last.message.messageId, afterParentId: last.message.parentId } : null,
    };
  }

  async switchBranch(conversationId: string, userId: string, messageId: string): Promise<{ conversation: Conversation | null; found: boolean; headId: string | null }> {
    const stored = this.store.conversations.get(conversationId);
    const conversation = stored?.conversation ?? null;
    if (!stored || !conversation?.isOwnedBy(userId) || !this.inConversation(messageId, conversationId)) {
      return { conversation, found: false, headId: stored?.headId ?? null };
    }
    const subtree = this.subtreeOf([messageId], conversationId);
    const newest = subtree.reduce((a, b) => (compareEntries(positionOf(a), positionOf(b)) >= 0 ? a : b));
    this.moveHead(conversationId, newest.message.messageId);
    return { conversation, found: true, headId: newest.message.messageId };
  }

  async count(conversationId: string): Promise<number> {
    return this.store.timelines.get(conversationId)?.length ?? 0;
  }

  async deleteOwned(conversationId: string, userId: string, messageIds: string[] | null, descendants = false): Promise<{ conversation: Conversation | null; deleted: number }> {
    const conversation = this.store.conversations.get(conversationId)?.conversation ?? null;
    if (!conversation?.isOwnedBy(userId)) return { conversation, deleted: 0 };
    const listed = messageIds === null ? (this.store.timelines.get(conversationId) ?? []).map((e) => e.message.messageId) : messageIds.filter((id) => this.inConversation(id, conversationId));
    const doomed = descendants ? this.subtreeOf(listed, conversationId).map((e) => e.message.messageId) : listed;
    return { conversation, deleted: this.deleteSpliced(conversationId, new Set(doomed)) };
  }

  /** For the memory store's own use: inserts in order, skipping ids already stored (and a second reply in progress to one message); the ids inserted. */
  async insert(messages: Message[]): Promise<string[]> {
    const inserted: string[] = [];
    for (const message of messages) {
      if (this.store.messages.has(message.messageId)) continue;
      if (message.replyTo !== null && message.status === 'in_progress' && this.replyInProgress(message.replyTo)) continue;
      const entry = { message, seq: this.store.nextSeq() };
      this.add(entry);
      this.undo.record(() => this.remove(new Set([message.messageId]), message.conversationId));
      inserted.push(message.messageId);
    }
    return inserted;
  }

  /** For the memory store's own use: one page of every branch after `after` (exclusive). */
  async page(conversationId: string, order: SortOrder, limit: number, after: MessagePosition | null): Promise<MessagePage> {
    const timeline = this.store.timelines.get(conversationId) ?? [];
    let slice: StoredMessage[];
    if (order === 'asc') {
      const start = after ? firstAfter(timeline, after) : 0;
      slice = timeline.slice(start, start + limit + 1);
    } else {
      // Entries strictly before `after`: everything below the first entry at or after it.
      const end = after ? firstAfter(timeline, { createdAt: after.createdAt, seq: after.seq - 1 }) : timeline.length;
      slice = timeline.slice(Math.max(0, end - limit - 1), end).reverse();
    }
    const page = slice.slice(0, limit);
    const last = page.at(-1);
    return { messages: page.map((e) => e.message), next: slice.length > limit && last ? positionOf(last) : null };
  }

  /** For the memory store's own use: replaces a stored message by a new state of it (same id, conversation and parent). */
  replace(message: Message): void {
    const entry = this.store.messages.get(message.messageId);
    if (!entry) return;
    const previous = entry.message;
    entry.message = message;
    this.undo.record(() => (entry.message = previous));
  }

  /** For the memory store's own use: the conversation's head moves (undone with the transaction). */
  moveHead(conversationId: string, headId: string | null): void {
    const stored = this.store.conversations.get(conversationId);
    if (!stored || stored.headId === headId) return;
    const previous = stored.headId;
    stored.headId = headId;
    this.undo.record(() => (stored.headId = previous));
  }

  /**
   * For the memory store's own use: deletes `doomed` of the conversation, keeping the tree whole —
   * the children of a deleted message follow its nearest surviving ancestor, and so does the head.
   */
  deleteSpliced(conversationId: string, doomed: Set<string>): number {
    const entries = [...doomed].flatMap((id) => {
      const entry = this.store.messages.get(id);
      return entry && entry.message.conversationId === conversationId ? [entry] : [];
    });
    if (entries.length === 0) return 0;
    // Each deleted message's nearest surviving ancestor; the doomed met on the way up share it (once each, whatever the chain's length).
    const lifted = new Map<string, string | null>();
    for (const entry of entries) {
      const climbed: string[] = [];
      let id: string | null = entry.message.messageId;
      while (id !== null && doomed.has(id) && !lifted.has(id)) {
        climbed.push(id);
        id = this.store.messages.get(id)?.message.parentId ?? null;
      }
      const survivor = id === null ? null : doomed.has(id) ? lifted.get(id)! : id;
      for (const doomedId of climbed) lifted.set(doomedId, survivor);
    }
    for (const entry of entries) {
      for (const child of [...(this.store.children.get(childrenKey(conversationId, entry.message.messageId)) ?? [])]) {
        if (!doomed.has(child.message.messageId)) this.reparent(child, lifted.get(entry.message.messageId)!);
      }
    }
    const head = this.store.conversations.get(conversationId)?.headId ?? null;
    if (head !== null && lifted.has(head)) this.moveHead(conversationId, lifted.get(head)!);
    this.remove(new Set(lifted.keys()), conversationId);
    this.undo.record(() => entries.forEach((entry) => this.add(entry)));
    return entries.length;
  }

  /** The messages from `from` up through their parents, `from` first, at most `maxDepth` (null: all). */
  private pathUp(from: string | null, conversationId: string, maxDepth: number | null): StoredMessage[] {
    const path: StoredMessage[] = [];
    for (let id = from; id !== null && (maxDepth === null || path.length < maxDepth); ) {
      const entry = this.store.messages.get(id);
      if (!entry || entry.message.conversationId !== conversationId) break;
      path.push(entry);
      id = entry.message.parentId;
    }
    return path;
  }

  /** The messages `roots` and all their descendants. */
  private subtreeOf(roots: string[], conversationId: string): StoredMessage[] {
    const seen = new Map<string, StoredMessage>();
    const queue = roots.flatMap((id) => {
      const entry = this.store.messages.get(id);
      return entry && entry.message.conversationId === conversationId ? [entry] : [];
    });
    while (queue.length > 0) {
      const entry = queue.pop()!;
      if (seen.has(entry.message.messageId)) continue;
      seen.set(entry.message.messageId, entry);
      queue.push(...(this.store.children.get(childrenKey(conversationId, entry.message.messageId)) ?? []));
    }
    return [...seen.values()];
  }

  private siblingsOf(entry: StoredMessage): Siblings {
    const siblings = this.store.children.get(childrenKey(entry.message.conversationId, entry.message.parentId)) ?? [entry];
    const index = siblings.indexOf(entry);
    return {
      count: siblings.length,
      index,
      previousId: siblings[index - 1]?.message.messageId ?? null,
      nextId: siblings[index + 1]?.message.messageId ?? null,
    };
  }

  private inConversation(messageId: string, conversationId: string): boolean {
    return this.store.messages.get(messageId)?.message.conversationId === conversationId;
  }

  private replyInProgress(questionId: string): boolean {
    return (this.store.replies.get(questionId) ?? []).some((id) => this.store.messages.get(id)?.message.status === 'in_progress');
  }

  private reparent(entry: StoredMessage, parentId: string | null): void {
    const previous = entry.message;
    this.unlinkChild(entry);
    entry.message = previous.with({ parentId });
    this.linkChild(entry);
    this.undo.record(() => {
      this.unlinkChild(entry);
      entry.message = previous;
      this.linkChild(entry);
    });
  }

  private linkChild(entry: StoredMessage): void {
    const key = childrenKey(entry.message.conversationId, entry.message.parentId);
    let list = this.store.children.get(key);
    if (!list) this.store.children.set(key, (list = []));
    list.splice(firstAfter(list, positionOf(entry)), 0, entry);
  }

  private unlinkChild(entry: StoredMessage): void {
    const key = childrenKey(entry.message.conversationId, entry.message.parentId);
    const list = (this.store.children.get(key) ?? []).filter((e) => e !== entry);
    if (list.length > 0) this.store.children.set(key, list);
    else this.store.children.delete(key);
  }

  private add(entry: StoredMessage): void {
    const { message } = entry;
    this.store.messages.set(message.messageId, entry);
    if (message.replyTo !== null) {
      const replies = this.store.replies.get(message.replyTo) ?? [];
      this.store.replies.set(message.replyTo, [...replies, message.messageId]);
    }
    this.store.noteActivity(message.conversationId);
    let timeline = this.store.timelines.get(message.conversationId);
    if (!timeline) this.store.timelines.set(message.conversationId, (timeline = []));
    timeline.splice(firstAfter(timeline, positionOf(entry)), 0, entry);
    this.linkChild(entry);
  }

  private remove(ids: Set<string>, conversationId: string): void {
    for (const id of ids) {
      const entry = this.store.messages.get(id);
      if (!entry) continue;
      const { replyTo } = entry.message;
      if (replyTo !== null) {
        const replies = (this.store.replies.get(replyTo) ?? []).filter((r) => r !== id);
        if (replies.length > 0) this.store.replies.set(replyTo, replies);
        else this.store.replies.delete(replyTo);
      }
      this.unlinkChild(entry);
      this.store.messages.delete(id);
    }
    const timeline = (this.store.timelines.get(conversationId) ?? []).filter((e) => !ids.has(e.message.messageId));
    if (timeline.length > 0) this.store.timelines.set(conversationId, timeline);
    else this.store.timelines.delete(conversationId);
  }
}

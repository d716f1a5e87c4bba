import type { ConversationDeletion, ResponseEnding, ResponseRecord, ResponseRepository, StringMetadata } from '../../../application/ports/response-repository.js';
import { InMemoryMessageRepository } from './in-memory-message-repository.js';
import type { MemoryStore, StoredConversation, StoredMessage } from './memory-store.js';
import type { UndoLog } from './undo-log.js';

interface Tables {
  responses: WeakMap<StoredMessage, ResponseRecord>;
  metadata: WeakMap<StoredConversation, StringMetadata>;
}

/**
 * Records keyed by the store's own entries: a message's entry (stable while it grows, finishes or
 * moves in the tree) and a conversation's. What the store drops or deletes takes its record along
 * (the entry is gone, so is the key), as PostgreSQL's foreign keys cascade.
 */
const tables = new WeakMap<MemoryStore, Tables>();

function tablesOf(store: MemoryStore): Tables {
  let found = tables.get(store);
  if (!found) tables.set(store, (found = { responses: new WeakMap(), metadata: new WeakMap() }));
  return found;
}

/** The record of a stored reply's response, if the Responses API made it. */
export function responseRecordOf(store: MemoryStore, entry: StoredMessage): ResponseRecord | undefined {
  return tablesOf(store).responses.get(entry);
}

/** Keeps a reply's ending (it is being removed before its first piece), recording how to undo it. */
export function keepEnding(store: MemoryStore, ending: ResponseEnding, undo: UndoLog): void {
  if (store.endings.has(ending.responseId)) return;
  store.addEnding(structuredClone(ending));
  undo.record(() => store.removeEnding(ending.responseId));
}

/** Sets `key` in `map`, recording how to undo it. */
function put<K extends object, V>(map: WeakMap<K, V>, key: K, value: V, undo: UndoLog): void {
  const had = map.has(key);
  const previous = map.get(key);
  map.set(key, value);
  undo.record(() => (had ? map.set(key, previous as V) : map.delete(key)));
}

export class InMemoryResponseRepository implements ResponseRepository {
  private readonly tables: Tables;

  constructor(
    private readonly store: MemoryStore,
    private readonly undo: UndoLog,
  ) {
    this.tables = tablesOf(store);
  }

  async save(record: ResponseRecord): Promise<void> {
    const entry = this.store.messages.get(record.responseId);
    if (entry) put(this.tables.responses, entry, structuredClone(record), this.undo);
  }

  async findById(responseId: string): Promise<ResponseRecord | null> {
    const entry = this.store.messages.get(responseId);
    const record = entry ? this.tables.responses.get(entry) : undefined;
    return record ? structuredClone(record) : null;
  }

  async findEnding(responseId: string): Promise<ResponseEnding | null> {
    const ending = this.store.endings.get(responseId);
    return ending ? structuredClone(ending) : null;
  }

  async deleteEnding(responseId: string, userId: string): Promise<boolean> {
    if (this.store.endings.get(responseId)?.userId !== userId) return false;
    const ending = this.store.removeEnding(responseId)!;
    this.undo.record(() => this.store.addEnding(ending));
    return true;
  }

  async conversationMetadata(conversationId: string): Promise<StringMetadata | null> {
    const stored = this.store.conversations.get(conversationId);
    const metadata = stored ? this.tables.metadata.get(stored) : undefined;
    return metadata ? { ...metadata } : null;
  }

  async saveConversationMetadata(conversationId: string, metadata: StringMetadata): Promise<void> {
    const stored = this.store.conversations.get(conversationId);
    if (stored) put(this.tables.metadata, stored, { ...metadata }, this.undo);
  }

  async deleteConversation(conversationId: string, userId: string): Promise<ConversationDeletion> {
    const stored = this.store.conversations.get(conversationId);
    if (!stored?.conversation.isOwnedBy(userId)) return { conversation: stored?.conversation ?? null, messages: 0, sessions: 0 };
    const { deleted } = await new InMemoryMessageRepository(this.store, this.undo).deleteOwned(conversationId, userId, null);
    const sessionIds = [...(this.store.sessionsOf.get(conversationId) ?? [])];
    const sessions = sessionIds.flatMap((id) => this.store.sessions.get(id) ?? []);
    for (const id of sessionIds) this.store.sessions.delete(id);
    this.store.sessionsOf.delete(conversationId);
    const endings = this.store.takeEndings(conversationId);
    this.store.removeConversation(conversationId, false);
    this.undo.record(() => {
      this.store.addConversation(stored);
      for (const ending of endings) this.store.addEnding(ending);
      if (sessionIds.length > 0) this.store.sessionsOf.set(conversationId, new Set(sessionIds));
      for (const session of sessions) this.store.sessions.set(session.sessionId, session);
    });
    return { conversation: stored.conversation, messages: deleted, sessions: sessions.length };
  }
}

import { childrenKey, type MemoryStore, type StoredMessage } from './memory-store.js';

export interface Dropped {
  conversations: number;
  messages: number;
  sessions: number;
}

/**
 * Keeps the store within `maxMessages` messages (replies' endings counted with them; and as many
 * conversations and sessions, so that writes without messages cannot grow it either) by dropping the least recently written
 * conversations whole: their messages, replies, sessions, the conversation, and its user when it
 * was their last. Each record is dropped at most once, so this costs amortised O(1) per write.
 */
export function dropLeastRecentlyActive(store: MemoryStore, maxMessages: number): Dropped {
  const dropped: Dropped = { conversations: 0, messages: 0, sessions: 0 };
  const over = () => store.messages.size + store.endings.size > maxMessages || store.conversations.size > maxMessages || store.sessions.size > maxMessages;
  while (over()) {
    const oldest = store.recency.keys().next();
    if (oldest.done) break;
    const gone = dropForGood(store, oldest.value);
    dropped.conversations += gone.conversations;
    dropped.messages += gone.messages;
    dropped.sessions += gone.sessions;
  }
  return dropped;
}

/**
 * Removes a conversation whole: its messages, replies, sessions, the conversation, and its user
 * when it was their last. Returns how many of each, and how to put it all back (an undo step).
 */
export function dropConversation(store: MemoryStore, conversationId: string): Dropped & { restore: () => void } {
  const { restore, ...dropped } = drop(store, conversationId, true);
  return { ...dropped, restore: restore! };
}

/** dropConversation for the store's bound: nothing is kept to put it back (no undo reaches it). */
function dropForGood(store: MemoryStore, conversationId: string): Dropped {
  return drop(store, conversationId, false);
}

function drop(store: MemoryStore, conversationId: string, undoable: boolean): Dropped & { restore?: () => void } {
  const stored = store.conversations.get(conversationId);
  const user = stored ? store.users.get(stored.conversation.userId) : undefined;
  const entries = store.timelines.get(conversationId) ?? [];
  const sessionIds = [...(store.sessionsOf.get(conversationId) ?? [])];
  const sessions = sessionIds.flatMap((id) => store.sessions.get(id) ?? []);
  const replies = new Map<string, string[] | undefined>();
  const children = new Map<string, StoredMessage[] | undefined>();
  for (const { message } of entries) {
    const key = childrenKey(conversationId, message.parentId);
    if (undoable) {
      if (message.replyTo !== null) replies.set(message.replyTo, store.replies.get(message.replyTo));
      children.set(key, store.children.get(key));
    }
    store.messages.delete(message.messageId);
    if (message.replyTo !== null) store.replies.delete(message.replyTo);
    store.children.delete(key);
  }
  store.timelines.delete(conversationId);
  for (const sessionId of sessionIds) store.sessions.delete(sessionId);
  store.sessionsOf.delete(conversationId);
  const endings = store.takeEndings(conversationId);
  store.removeConversation(conversationId, true);
  store.recency.delete(conversationId);
  const dropped = { conversations: stored ? 1 : 0, messages: entries.length, sessions: sessions.length };
  if (!undoable) return dropped;
  const restore = () => {
    if (stored) {
      if (user) store.users.set(user.userId, user);
      store.addConversation(stored);
    }
    for (const entry of entries) store.messages.set(entry.message.messageId, entry);
    if (entries.length > 0) store.timelines.set(conversationId, entries);
    for (const [key, list] of replies) if (list) store.replies.set(key, list);
    for (const [key, list] of children) if (list) store.children.set(key, list);
    for (const session of sessions) store.sessions.set(session.sessionId, session);
    if (sessionIds.length > 0) store.sessionsOf.set(conversationId, new Set(sessionIds));
    for (const ending of endings) store.addEnding(ending);
  };
  return { ...dropped, restore };
}

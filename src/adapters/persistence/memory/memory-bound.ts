import { childrenKey, type MemoryStore } from './memory-store.js';

export interface Dropped {
  conversations: number;
  messages: number;
  sessions: number;
}

/**
 * Keeps the store within `maxMessages` messages (and as many conversations and sessions, so
 * that writes without messages cannot grow it either) by dropping the least recently written
 * conversations whole: their messages, replies, sessions, the conversation, and its user when it
 * was their last. Each record is dropped at most once, so this costs amortised O(1) per write.
 */
export function dropLeastRecentlyActive(store: MemoryStore, maxMessages: number): Dropped {
  const dropped: Dropped = { conversations: 0, messages: 0, sessions: 0 };
  const over = () => store.messages.size > maxMessages || store.conversations.size > maxMessages || store.sessions.size > maxMessages;
  while (over()) {
    const oldest = store.recency.keys().next();
    if (oldest.done) break;
    const gone = dropConversation(store, oldest.value);
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
  const stored = store.conversations.get(conversationId);
  const user = stored ? store.users.get(stored.conversation.userId) : undefined;
  const entries = [...(store.timelines.get(conversationId) ?? [])];
  const sessionIds = [...(store.sessionsOf.get(conversationId) ?? [])];
  const sessions = sessionIds.flatMap((id) => store.sessions.get(id) ?? []);
  const replies = new Map(entries.flatMap((e) => (e.message.replyTo !== null ? [[e.message.replyTo, store.replies.get(e.message.replyTo)] as const] : [])));
  const children = new Map(entries.map((e) => [childrenKey(conversationId, e.message.parentId), store.children.get(childrenKey(conversationId, e.message.parentId))] as const));
  for (const { message } of entries) {
    store.messages.delete(message.messageId);
    if (message.replyTo !== null) store.replies.delete(message.replyTo);
    store.children.delete(childrenKey(conversationId, message.parentId));
  }
  store.timelines.delete(conversationId);
  for (const sessionId of sessionIds) store.sessions.delete(sessionId);
  store.sessionsOf.delete(conversationId);
  store.removeConversation(conversationId, true);
  store.recency.delete(conversationId);
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
  };
  return { conversations: stored ? 1 : 0, messages: entries.length, sessions: sessions.length, restore };
}

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
    const conversationId = oldest.value;
    for (const entry of store.timelines.get(conversationId) ?? []) {
      const { message } = entry;
      store.messages.delete(message.messageId);
      if (message.replyTo !== null) store.replies.delete(message.replyTo);
      store.children.delete(childrenKey(conversationId, message.parentId));
      dropped.messages++;
    }
    store.timelines.delete(conversationId);
    for (const sessionId of store.sessionsOf.get(conversationId) ?? []) {
      store.sessions.delete(sessionId);
      dropped.sessions++;
    }
    store.sessionsOf.delete(conversationId);
    if (store.conversations.has(conversationId)) dropped.conversations++;
    store.removeConversation(conversationId, true);
    store.recency.delete(conversationId);
  }
  return dropped;
}

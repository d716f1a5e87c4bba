import { TITLE_SOURCES, type TitleSource } from '../../domain/conversation.js';
import { ROLES, type Role } from '../../domain/message.js';
import { ConversationUnreadableError, isObject, keptTree, stringOrNull, timeOrNull, type Json, type SourceConversation } from './source-conversation.js';

/** A line of this service's ndjson export (and its per-conversation json export): `{conversation, messages}`. */
export const isServiceConversation = (value: unknown): boolean => isObject(value) && isObject(value.conversation) && Array.isArray(value.messages);

/** One conversation of this service's export: every field as exported (docs/import-export.md). */
export function readServiceConversation(value: unknown): SourceConversation {
  const c = (value as Json).conversation as Json;
  const id = stringOrNull(c.conversation_id);
  if (id === null) throw new ConversationUnreadableError(null, 'conversation.conversation_id: missing');
  const createdAt = timeOrNull(c.created_at);
  if (createdAt === null) throw new ConversationUnreadableError(id, 'conversation.created_at: missing or not a time');
  const nodes = ((value as Json).messages as unknown[]).map((m, index) => {
    if (!isObject(m)) throw new ConversationUnreadableError(id, `messages[${index}]: must be an object`);
    const messageId = stringOrNull(m.message_id);
    const time = timeOrNull(m.created_at);
    if (messageId === null || time === null || !ROLES.includes(m.role as Role) || typeof m.text !== 'string') {
      throw new ConversationUnreadableError(id, `messages[${index}]: needs message_id, role, text and created_at`);
    }
    return { id: messageId, parentId: stringOrNull(m.parent_id), createdAt: time, role: m.role as Role, text: m.text, metadata: isObject(m.metadata) ? m.metadata : {} };
  });
  const tree = keptTree(nodes, (n) => n.text.trim() !== '', stringOrNull(c.head_id));
  const titleSource = TITLE_SOURCES.includes(c.title_source as TitleSource) ? (c.title_source as TitleSource) : null;
  return {
    id,
    title: stringOrNull(c.title),
    titleSource: stringOrNull(c.title) === null ? null : (titleSource ?? 'user'),
    createdAt,
    activeAt: timeOrNull(c.last_message_at),
    pinned: c.pinned === true,
    archived: c.archived === true,
    messages: tree.nodes,
    headId: tree.headId,
    duplicates: tree.duplicates,
  };
}

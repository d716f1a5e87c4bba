import { ConversationUnreadableError, isObject, keptTree, placeholderFor, stringOrNull, timeOrNull, type Json, type SourceConversation } from './source-conversation.js';

/** Claude's conversations.json holds conversations with `chat_messages`. */
export const isClaudeConversation = (value: unknown): boolean => isObject(value) && Array.isArray(value.chat_messages);

/** The parent Claude gives a first message. */
const ROOT = '00000000-0000-4000-8000-000000000000';
const HIDDEN_CONTENT = new Set(['thinking', 'redacted_thinking']);

/** One conversation of Claude's export (docs/import-export.md, field by field). */
export function readClaudeConversation(value: unknown): SourceConversation {
  const c = value as Json;
  const id = stringOrNull(c.uuid);
  if (id === null) throw new ConversationUnreadableError(stringOrNull(c.name), 'uuid: missing');
  const createdAt = timeOrNull(c.created_at);
  if (createdAt === null) throw new ConversationUnreadableError(id, 'created_at: missing or not a time');
  const list = (c.chat_messages as unknown[]).filter(isObject);
  let previous: string | null = null;
  const nodes = list.map((m, index) => {
    const messageId = stringOrNull(m.uuid) ?? `${id}#${index}`;
    const given = stringOrNull(m.parent_message_uuid);
    // Without a parent, messages follow one another in the file's order.
    const parentId = given === ROOT ? null : (given ?? previous);
    previous = messageId;
    return { id: messageId, parentId, createdAt: timeOrNull(m.created_at) ?? createdAt, read: readMessage(messageId, m) };
  });
  const tree = keptTree(nodes, (n) => n.read !== null, nodes.at(-1)?.id ?? null);
  return {
    id,
    title: stringOrNull(c.name),
    titleSource: stringOrNull(c.name) === null ? null : 'generated',
    createdAt,
    activeAt: timeOrNull(c.updated_at),
    pinned: false,
    archived: false,
    messages: tree.nodes.map((n) => ({ ...n.read!, id: n.id, parentId: n.parentId, createdAt: n.createdAt })),
    headId: tree.headId,
    duplicates: tree.duplicates,
  };
}

function readMessage(id: string, m: Json) {
  const role = m.sender === 'human' ? 'user' : m.sender === 'assistant' ? 'assistant' : null;
  if (role === null) return null;
  const parts: string[] = [];
  const pieces: string[] = [];
  if (Array.isArray(m.content) && m.content.length > 0) {
    for (const item of m.content.filter(isObject)) {
      const kind = stringOrNull(item.type) ?? 'unknown';
      if (HIDDEN_CONTENT.has(kind)) continue;
      if (kind === 'text' && typeof item.text === 'string') pieces.push(item.text);
      else {
        parts.push(kind);
        pieces.push(placeholderFor(kind));
      }
    }
  } else if (typeof m.text === 'string') pieces.push(m.text);
  const files = [...(Array.isArray(m.attachments) ? m.attachments : []), ...(Array.isArray(m.files) ? m.files : [])].filter(isObject);
  parts.push(...files.map(() => 'file'));
  pieces.push(...files.map(() => placeholderFor('file')));
  const text = pieces.filter((p) => p.trim() !== '').join('\n\n');
  if (text.trim() === '') return null;
  const imported: Json = { source: 'claude', id };
  if (parts.length > 0) imported.parts = parts;
  const names = files.flatMap((f) => (typeof f.file_name === 'string' ? [f.file_name] : []));
  if (names.length > 0) imported.files = names;
  return { role, text, metadata: { imported } } as const;
}

import type { Role } from '../../domain/message.js';
import { ConversationUnreadableError, isObject, keptTree, placeholderFor, stringOrNull, timeOrNull, type Json, type SourceConversation, type SourceMessage } from './source-conversation.js';

/** ChatGPT's conversations.json holds conversations with a `mapping` of nodes. */
export const isChatGptConversation = (value: unknown): boolean => isObject(value) && isObject(value.mapping);

/** Content that is the model's own context or reasoning, never shown as a message. */
const HIDDEN_CONTENT = new Set(['user_editable_context', 'model_editable_context', 'thoughts', 'reasoning_recap']);
const ROLES: Record<string, Role> = { user: 'user', assistant: 'assistant', system: 'system', tool: 'assistant' };

/** One conversation of ChatGPT's export (docs/import-export.md, field by field). */
export function readChatGptConversation(value: unknown): SourceConversation {
  const c = value as Json;
  const id = stringOrNull(c.conversation_id) ?? stringOrNull(c.id);
  if (id === null) throw new ConversationUnreadableError(stringOrNull(c.title), 'has neither conversation_id nor id');
  const mapping = c.mapping as Json;
  const raw = Object.entries(mapping).map(([key, node]) => readNode(key, node));
  let earliest = Number.POSITIVE_INFINITY;
  for (const n of raw) if (n.time && n.time.getTime() < earliest) earliest = n.time.getTime();
  const createdAt = timeOrNull(c.create_time) ?? (earliest < Number.POSITIVE_INFINITY ? new Date(earliest) : null);
  if (createdAt === null) throw new ConversationUnreadableError(id, 'create_time: missing, and no message has a time');
  const byId = new Map(raw.map((n) => [n.id, n]));
  const timeOf = inheritedTimes(byId, createdAt);
  const nodes = raw.map((n) => ({ ...n, createdAt: timeOf(n) }));
  const tree = keptTree(nodes, (n) => n.message !== null, stringOrNull(c.current_node));
  const messages: SourceMessage[] = tree.nodes.map((n) => ({ ...n.message!, id: n.id, parentId: n.parentId, createdAt: n.createdAt }));
  return {
    id,
    title: stringOrNull(c.title),
    titleSource: stringOrNull(c.title) === null ? null : 'generated',
    createdAt,
    activeAt: timeOrNull(c.update_time),
    pinned: false,
    archived: c.is_archived === true,
    messages,
    headId: tree.headId,
    duplicates: tree.duplicates,
  };
}

type ReadMessage = Omit<SourceMessage, 'id' | 'parentId' | 'createdAt'>;

/**
 * A message without a time takes its nearest ancestor's that has one (or the conversation's, at
 * a root, an unknown parent or a loop): found without recursion and once per node, so a chain of
 * many thousand messages without times costs its length, not its square (nor the call stack).
 */
function inheritedTimes<N extends { id: string; parentId: string | null; time: Date | null }>(byId: Map<string, N>, fallback: Date): (node: N) => Date {
  const found = new Map<string, Date>();
  return (start) => {
    const path: string[] = [];
    const onPath = new Set<string>();
    let time = fallback;
    for (let node: N | undefined = start; node; node = node.parentId === null ? undefined : byId.get(node.parentId)) {
      if (node.time) {
        time = node.time;
        break;
      }
      const known = found.get(node.id);
      if (known) {
        time = known;
        break;
      }
      if (onPath.has(node.id)) break;
      onPath.add(node.id);
      path.push(node.id);
    }
    for (const id of path) found.set(id, time);
    return time;
  };
}

function readNode(key: string, value: unknown): { id: string; parentId: string | null; time: Date | null; message: ReadMessage | null } {
  const node = isObject(value) ? value : {};
  const id = stringOrNull(node.id) ?? key;
  const parentId = stringOrNull(node.parent);
  const m = isObject(node.message) ? node.message : null;
  return { id, parentId, time: m ? timeOrNull(m.create_time) : null, message: m ? readMessage(id, m) : null };
}

/** The message of a node, or null when it is hidden, empty or of no role this service has. */
function readMessage(id: string, m: Json): ReadMessage | null {
  const author = isObject(m.author) ? m.author : {};
  const sourceRole = stringOrNull(author.role) ?? '';
  const role = ROLES[sourceRole];
  const meta = isObject(m.metadata) ? m.metadata : {};
  const content = isObject(m.content) ? m.content : {};
  const kind = stringOrNull(content.content_type) ?? 'text';
  if (role === undefined || meta.is_visually_hidden_from_conversation === true || HIDDEN_CONTENT.has(kind)) return null;
  const recipient = stringOrNull(m.recipient);
  const toTool = role === 'assistant' && sourceRole === 'assistant' && recipient !== null && recipient !== 'all';
  const { text, parts } = toTool ? { text: placeholderFor('tool_call'), parts: ['tool_call'] } : contentText(content, kind);
  if (text.trim() === '') return null;
  const imported: Json = { source: 'chatgpt', id };
  if (parts.length > 0) imported.parts = parts;
  if (sourceRole === 'tool') imported.role = 'tool';
  if (stringOrNull(author.name) !== null) imported.name = author.name;
  if (toTool) imported.recipient = recipient;
  if (stringOrNull(meta.model_slug) !== null) imported.model = meta.model_slug;
  return { role, text, metadata: { imported } };
}

/** The text of a content: its string parts, a placeholder for each other part, or its `text`. */
function contentText(content: Json, kind: string): { text: string; parts: string[] } {
  if (Array.isArray(content.parts)) {
    const parts: string[] = [];
    const pieces = content.parts.map((part: unknown) => {
      if (typeof part === 'string') return part;
      const partKind = isObject(part) ? (stringOrNull(part.content_type) ?? 'object') : typeof part;
      parts.push(partKind);
      return placeholderFor(partKind);
    });
    return { text: pieces.filter((p) => p.trim() !== '').join('\n\n'), parts };
  }
  if (typeof content.text === 'string') return { text: content.text, parts: [] };
  if (typeof content.result === 'string') return { text: content.result, parts: [] };
  return { text: placeholderFor(kind), parts: [kind] };
}

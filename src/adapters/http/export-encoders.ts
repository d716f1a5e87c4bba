import type { ExportedConversation } from '../../application/transfer/export-conversations.js';
import { conversationJson, messageJson } from './presenters.js';

/** A conversation in this service's export shape: a line of ndjson, or the per-conversation json. */
export function serviceConversationJson({ view, messages }: ExportedConversation) {
  return { conversation: conversationJson(view), messages: messages.map(messageJson) };
}

/** Every tree in ChatGPT's shape hangs from one root without a message, as ChatGPT's own do. */
const ROOT = 'client-created-root';

/** ChatGPT's root id, or (where a message of the conversation has that id) the first of `…-1`, `…-2`… that none has. */
function rootIdAmong(messages: readonly { messageId: string }[]): string {
  const ids = new Set(messages.map((m) => m.messageId));
  let root = ROOT;
  for (let n = 1; ids.has(root); n++) root = `${ROOT}-${n}`;
  return root;
}
const seconds = (date: Date) => date.getTime() / 1000;

/** A conversation in the shape of ChatGPT's conversations.json (docs/import-export.md). */
export function chatGptConversationJson({ view, messages }: ExportedConversation) {
  const root = rootIdAmong(messages);
  const children = new Map<string, string[]>();
  for (const m of messages) {
    const parent = m.parentId ?? root;
    const list = children.get(parent);
    if (list) list.push(m.messageId);
    else children.set(parent, [m.messageId]);
  }
  const mapping: Record<string, unknown> = { [root]: { id: root, message: null, parent: null, children: children.get(root) ?? [] } };
  for (const m of messages) {
    mapping[m.messageId] = {
      id: m.messageId,
      message: {
        id: m.messageId,
        author: { role: m.role, name: null, metadata: {} },
        create_time: seconds(m.createdAt),
        update_time: null,
        content: { content_type: 'text', parts: [m.text] },
        status: 'finished_successfully',
        end_turn: m.role === 'assistant' ? true : null,
        weight: 1,
        metadata: messageJson(m).metadata,
        recipient: 'all',
        channel: null,
      },
      parent: m.parentId ?? root,
      children: children.get(m.messageId) ?? [],
    };
  }
  const id = view.conversation.conversationId;
  return {
    title: view.title ?? '',
    create_time: seconds(view.conversation.createdAt),
    update_time: seconds(view.activeAt),
    mapping,
    moderation_results: [],
    current_node: view.headId ?? root,
    plugin_ids: null,
    conversation_id: id,
    conversation_template_id: null,
    gizmo_id: null,
    is_archived: view.archived,
    safe_urls: [],
    default_model_slug: null,
    id,
  };
}

const ROLE_NAMES = { user: 'User', assistant: 'Assistant', system: 'System' } as const;

/** The active branch as a readable Markdown document. */
export function conversationMarkdown({ view, messages }: ExportedConversation): string {
  const lines = [`# ${oneLine(view.title ?? 'Conversation')}`, '', `Conversation \`${view.conversation.conversationId}\`, created ${view.conversation.createdAt.toISOString()}; its active branch, ${messages.length} message(s).`, ''];
  for (const m of messages) lines.push(`## ${ROLE_NAMES[m.role]} · ${m.createdAt.toISOString()}`, '', m.text, '');
  return lines.join('\n');
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A file name made of the id's safe characters. */
export const fileNameOf = (id: string, extension: string) => `conversation-${id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100)}.${extension}`;

/** A user's conversations as ndjson, one line each. */
export async function* ndjsonLines(conversations: AsyncIterable<ExportedConversation>): AsyncGenerator<string> {
  for await (const conversation of conversations) yield `${JSON.stringify(serviceConversationJson(conversation))}\n`;
}

/** A user's conversations as one JSON array in ChatGPT's shape, written one conversation at a time. */
export async function* chatGptArray(conversations: AsyncIterable<ExportedConversation>): AsyncGenerator<string> {
  yield '[';
  let first = true;
  for await (const conversation of conversations) {
    yield `${first ? '' : ','}\n${JSON.stringify(chatGptConversationJson(conversation))}`;
    first = false;
  }
  yield '\n]\n';
}

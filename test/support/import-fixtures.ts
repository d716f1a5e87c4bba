/**
 * Files in each import format, built by the tests: branches, a hidden system node, an image part,
 * a tool message, emoji and right-to-left text.
 */
const seconds = (iso: string) => Date.parse(iso) / 1000;

export const RTL = 'שלום עולם';
export const ARABIC = 'مرحبا بالعالم';

/** One conversation of ChatGPT's conversations.json (`n` makes its ids and times its own). */
export function chatGptConversation(n = 0, id = `c0ffee00-0000-4000-8000-${String(n).padStart(12, '0')}`) {
  const node = (key: string) => `${key}-${id}`;
  const at = (minute: number) => seconds(`2024-03-0${1 + (n % 9)}T10:${String(minute).padStart(2, '0')}:00.250Z`);
  const message = (key: string, role: string, content: unknown, minute: number, extra: Record<string, unknown> = {}) => ({
    id: node(key),
    author: { role, name: role === 'tool' ? 'python' : null, metadata: {} },
    create_time: at(minute),
    update_time: null,
    content,
    status: 'finished_successfully',
    end_turn: null,
    weight: 1,
    metadata: {},
    recipient: 'all',
    ...extra,
  });
  const text = (t: string) => ({ content_type: 'text', parts: [t] });
  const entries: [string, unknown, string | null, string[]][] = [
    ['root', null, null, ['sys']],
    ['sys', message('sys', 'system', text(''), 0, { metadata: { is_visually_hidden_from_conversation: true } }), 'root', ['u1']],
    ['u1', message('u1', 'user', text(`Hello 👋 ${RTL}`), 1), 'sys', ['a1', 'a1b']],
    ['a1', message('a1', 'assistant', text('Hi there!'), 2), 'u1', ['u2']],
    ['a1b', message('a1b', 'assistant', text(`Another answer 🎉 ${ARABIC}`), 3), 'u1', []],
    ['u2', message('u2', 'user', { content_type: 'multimodal_text', parts: [{ content_type: 'image_asset_pointer', asset_pointer: 'file-service://file-1', width: 10, height: 10 }, 'What is in this picture?'] }, 4), 'a1', ['a2']],
    ['a2', message('a2', 'assistant', { content_type: 'code', language: 'python', text: 'print(1)' }, 5, { recipient: 'python' }), 'u2', ['t1']],
    ['t1', message('t1', 'tool', { content_type: 'execution_output', text: '1' }, 6), 'a2', ['a3']],
    ['a3', message('a3', 'assistant', text('It prints 1.'), 7), 't1', []],
  ];
  const mapping = Object.fromEntries(entries.map(([key, m, parent, children]) => [node(key), { id: node(key), message: m, parent: parent && node(parent), children: children.map(node) }]));
  return {
    title: `Pictures and code ${n} 🐍`,
    create_time: at(0),
    update_time: at(8),
    mapping,
    moderation_results: [],
    current_node: node('a3'),
    plugin_ids: null,
    conversation_id: id,
    conversation_template_id: null,
    gizmo_id: null,
    is_archived: false,
    safe_urls: [],
    id,
  };
}

/** What importing chatGptConversation gives: 7 messages (the hidden system node skipped), the active branch of 6. */
export const CHATGPT_EXPECTED = {
  messages: 7,
  active: ['user', 'assistant', 'user', 'assistant', 'assistant', 'assistant'],
  activeTexts: [`Hello 👋 ${RTL}`, 'Hi there!', '[image]\n\nWhat is in this picture?', '[tool call]', '1', 'It prints 1.'],
};

const ROOT = '00000000-0000-4000-8000-000000000000';

/** One conversation of Claude's conversations.json: h1 → a1 → (h2 → a2 | h2b). */
export function claudeConversation(n = 0, id = `c1a0de00-0000-4000-8000-${String(n).padStart(12, '0')}`) {
  const m = (key: string) => `${id.slice(0, 9)}${key.padStart(4, '0')}${id.slice(13)}`;
  const at = (minute: number) => `2024-05-0${1 + (n % 9)}T08:0${minute}:00.500000Z`;
  const message = (key: string, sender: string, parent: string, minute: number, content: unknown[], extra: Record<string, unknown> = {}) => ({
    uuid: m(key),
    text: '',
    content,
    sender,
    created_at: at(minute),
    updated_at: at(minute),
    attachments: [],
    files: [],
    parent_message_uuid: parent,
    ...extra,
  });
  const text = (t: string) => ({ type: 'text', text: t });
  return {
    uuid: id,
    name: `Claude chat ${n} ✨`,
    summary: '',
    created_at: at(0),
    updated_at: at(6),
    account: { uuid: 'acc' },
    chat_messages: [
      message('1', 'human', ROOT, 1, [text(`Bonjour 🌍 ${ARABIC}`)]),
      message('2', 'assistant', m('1'), 2, [text('Salut !'), { type: 'tool_use', name: 'web_search', input: { q: 'x' } }]),
      message('3', 'human', m('2'), 3, [text('See the photo')], { files: [{ file_name: 'photo.png' }] }),
      message('5', 'human', m('2'), 4, [text(`Or this ${RTL}`)]),
      message('4', 'assistant', m('3'), 5, [{ type: 'thinking', thinking: 'hmm' }, text('Nice photo.')]),
    ],
  };
}

export const CLAUDE_EXPECTED = {
  messages: 5,
  activeTexts: [`Bonjour 🌍 ${ARABIC}`, 'Salut !\n\n[tool call]', 'See the photo\n\n[file]', 'Nice photo.'],
};

export const asChatGptFile = (conversations: unknown[]) => JSON.stringify(conversations, null, 1);

import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/** A small deterministic generator (mulberry32), so every run writes the same file. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const WORDS = ('the a of to and in is it you that he was for on are with as I his they be at one have this from or had by word but what some we can out other were all there when up use your how said an each she which do their time if will way about many then them write would like so these her long make thing see him two has look more day could go come did number sound no most people my over know water than call first who may down side been now find ' +
  'שלום עולם مرحبا 🎉 👋 naïve café').split(' ');

/** Turns per conversation (a user message and its reply each), and one regenerated reply per conversation: a branch. */
const TURNS = 20;

export interface GeneratedFile {
  bytes: number;
  conversations: number;
  /** Messages an import creates (the hidden system node of each conversation is not one). */
  messages: number;
}

/**
 * Writes a ChatGPT-shaped conversations.json of about `targetBytes`: conversations of 20 turns
 * under a hidden system node, one reply regenerated (a branch), an image part now and then;
 * written as it is made, so the bench holds one conversation at a time too.
 */
export async function writeChatGptFile(path: string, targetBytes: number, seed = 7): Promise<GeneratedFile> {
  const next = random(seed);
  const out = createWriteStream(path);
  let bytes = 0;
  let conversations = 0;
  let messages = 0;
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  };
  const sentence = (words: number) => Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
  await write('[');
  const start = Date.parse('2024-01-01T00:00:00Z') / 1000;
  while (bytes < targetBytes) {
    const n = conversations++;
    const id = `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
    const node = (k: string) => `${k}-${id}`;
    const t0 = start + n * 3600;
    const mapping: Record<string, unknown> = {};
    const add = (key: string, parent: string | null, children: string[], message: unknown) =>
      (mapping[node(key)] = { id: node(key), message, parent: parent && node(parent), children: children.map(node) });
    const message = (key: string, role: string, minute: number, content: unknown, metadata: Record<string, unknown> = {}) => ({
      id: node(key), author: { role, name: null, metadata: {} }, create_time: t0 + minute * 60, update_time: null, content,
      status: 'finished_successfully', end_turn: role === 'assistant' ? true : null, weight: 1, metadata, recipient: 'all', channel: null,
    });
    add('root', null, ['sys'], null);
    add('sys', 'root', ['u0'], message('sys', 'system', 0, { content_type: 'text', parts: [''] }, { is_visually_hidden_from_conversation: true }));
    const branchAt = 1 + Math.floor(next() * (TURNS - 2));
    let last = 'sys';
    for (let turn = 0; turn < TURNS; turn++) {
      const [u, a] = [`u${turn}`, `a${turn}`];
      const parts: unknown[] = [sentence(10 + Math.floor(next() * 60))];
      if (next() < 0.05) parts.unshift({ content_type: 'image_asset_pointer', asset_pointer: `file-service://file-${n}-${turn}`, width: 512, height: 512 });
      const replies = turn === branchAt ? [`b${turn}`, a] : [a];
      add(u, last, replies, message(u, 'user', 2 * turn + 1, { content_type: parts.length > 1 ? 'multimodal_text' : 'text', parts }));
      if (turn === branchAt) add(`b${turn}`, u, [], message(`b${turn}`, 'assistant', 2 * turn + 1.5, { content_type: 'text', parts: [sentence(40 + Math.floor(next() * 200))] }, { model_slug: 'gpt-4o' }));
      add(a, u, turn + 1 < TURNS ? [`u${turn + 1}`] : [], message(a, 'assistant', 2 * turn + 2, { content_type: 'text', parts: [sentence(40 + Math.floor(next() * 200))] }, { model_slug: 'gpt-4o' }));
      last = a;
    }
    messages += 2 * TURNS + 1;
    const conversation = { title: `Conversation ${n}`, create_time: t0, update_time: t0 + 2 * TURNS * 60, mapping, moderation_results: [], current_node: node(last), plugin_ids: null, conversation_id: id, conversation_template_id: null, gizmo_id: null, is_archived: false, safe_urls: [], default_model_slug: 'gpt-4o', id };
    await write(`${n === 0 ? '' : ','}\n${JSON.stringify(conversation)}`);
  }
  await write('\n]\n');
  out.end();
  await once(out, 'finish');
  return { bytes, conversations, messages };
}

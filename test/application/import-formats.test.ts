import { expect } from 'chai';
import { readChatGptConversation } from '../../src/application/transfer/chatgpt-format.js';
import { keptTree } from '../../src/application/transfer/source-conversation.js';

/** A ChatGPT mapping node: `parent` null for the root; `time` in Unix seconds, or none. */
const node = (id: string, parent: string | null, text: string | null, time: number | null = null) => ({
  id,
  parent,
  children: [],
  message: text === null ? null : { id, author: { role: 'user' }, create_time: time, content: { content_type: 'text', parts: [text] } },
});

/**
 * The shapes of real exports that once broke a whole import (500, nothing stored): long chains of
 * messages without times, and conversations wider or longer than a call's arguments.
 */
describe('reading imported conversations: long and wide ones', () => {
  it('a chain of 12,000 messages without times takes the conversation\'s time, in order (the recursion overflowed the stack)', () => {
    const mapping: Record<string, unknown> = { root: node('root', null, null) };
    for (let i = 0; i < 12_000; i++) mapping[`m${i}`] = node(`m${i}`, i === 0 ? 'root' : `m${i - 1}`, `message ${i}`);
    const read = readChatGptConversation({ id: 'long', title: 'Long', create_time: 1_700_000_000, mapping, current_node: 'm11999' });
    expect(read.messages).to.have.length(12_000);
    expect(read.messages.every((m) => m.createdAt.getTime() === 1_700_000_000_000)).to.equal(true);
    expect(read.messages.at(-1)).to.deep.include({ id: 'm11999', parentId: 'm11998' });
    expect(read.headId).to.equal('m11999');
  });

  it('a message without a time takes its nearest ancestor\'s; a loop of parents, the conversation\'s', () => {
    const mapping = {
      a: node('a', null, 'a', 1_700_000_100),
      b: node('b', 'a', 'b'),
      c: node('c', 'b', 'c'),
      x: node('x', 'y', 'x'),
      y: node('y', 'x', 'y'),
    };
    const read = readChatGptConversation({ id: 'times', create_time: 1_700_000_000, mapping });
    const times = Object.fromEntries(read.messages.map((m) => [m.id, m.createdAt.getTime() / 1000]));
    expect(times).to.deep.equal({ a: 1_700_000_100, b: 1_700_000_100, c: 1_700_000_100, x: 1_700_000_000, y: 1_700_000_000 });
  });

  it('150,000 messages with times and no conversation time, and a root with 150,000 children (a spread of that many arguments overflowed)', () => {
    const mapping: Record<string, unknown> = { root: node('root', null, null) };
    for (let i = 0; i < 150_000; i++) mapping[`m${i}`] = node(`m${i}`, 'root', `sibling ${i}`, 1_700_000_000 + (i % 7));
    const read = readChatGptConversation({ id: 'wide', mapping });
    expect(read.createdAt.getTime()).to.equal(1_700_000_000_000);
    expect(read.messages).to.have.length(150_000);
  });

  it('siblings of equal times keep the file\'s order (an export lists them so, and the round trip must keep them so)', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const nodes = ['q', 'r1', 'r2', 'r3'].map((id) => ({ id, parentId: id === 'q' ? null : 'q', createdAt: at }));
    expect(keptTree(nodes, () => true, null).nodes.map((n) => n.id)).to.deep.equal(['q', 'r1', 'r2', 'r3']);
    const roots = ['s1', 's2', 's3'].map((id) => ({ id, parentId: null, createdAt: at }));
    expect(keptTree(roots, () => true, null).nodes.map((n) => n.id)).to.deep.equal(['s1', 's2', 's3']);
  });
});

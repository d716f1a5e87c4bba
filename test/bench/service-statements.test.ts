import { expect } from 'chai';
import type { Sql } from 'sql-template-tag';
import { CHAT_BEGIN, CHAT_FINISH, SAVE_MESSAGE } from '../../bench/baselines/service-statements.js';
import { PostgresMessageRepository } from '../../src/adapters/persistence/postgres/postgres-message-repository.js';
import { PostgresReplyRepository } from '../../src/adapters/persistence/postgres/postgres-reply-repository.js';
import type { Statements } from '../../src/adapters/persistence/postgres/statements.js';
import { openReply } from '../../src/domain/reply.js';
import { Conversation } from '../../src/domain/conversation.js';
import { Message } from '../../src/domain/message.js';

/** A statement's text with its comments dropped, every parameter written `$`, and spaces made one. */
const shape = (text: string) =>
  text
    .replace(/\/\*.*?\*\//gs, ' ')
    .replace(/--[^\n]*/g, ' ')
    .replace(/\$\d+/g, '$')
    .replace(/\s+/g, ' ')
    .replace(/\s*([(),])\s*/g, '$1')
    .trim();

/** The texts the service's reply repository sends, with canned answers. */
function recordingStatements(texts: string[]): Statements {
  return {
    transactional: false,
    async rows(query: Sql) {
      texts.push(query.text);
      if (query.text.includes('messages.append')) return [{ claimed: null, existing: null, taken: [], inserted: [], unknown_parents: [], raced: false }];
      return query.text.includes('replies.begin')
        ? [{ claimed: null, existing: null, taken: null, taken_reply: null, history: [], inserted: [], unknown_parent: false, raced: false }]
        : [{ finished: null, current: null, removed: '0', named: false }];
    },
  } as unknown as Statements;
}

describe('bench: the hand-written PostgreSQL server runs the service\'s statements for saveMessage and a chat turn', () => {
  const now = new Date('2026-11-29T05:00:00Z');
  const conversation = Conversation.create({ conversationId: 'chat-1', userId: 'user-1', createdAt: now });
  const question = Message.create({ messageId: 'q', conversationId: 'chat-1', userId: 'user-1', role: 'user', text: 'Hello', createdAt: now, metadata: {}, replyTo: null, parentId: null });
  const reply = openReply(question, 'r', 'offline-eliza', now);

  it('replies.begin, as POST /v1/chat begins a turn (no parent named, no context)', async () => {
    const texts: string[] = [];
    await new PostgresReplyRepository(recordingStatements(texts)).begin({ conversation, userMessage: question, parentIfStored: null, reply, historyLimit: 20 });
    expect(texts).to.have.length(1);
    expect(shape(CHAT_BEGIN)).to.equal(shape(texts[0]!));
  });

  it('replies.finish, named or not', async () => {
    const texts: string[] = [];
    const repository = new PostgresReplyRepository(recordingStatements(texts));
    const done = reply.with({ text: 'Hi there.', finishReason: 'stop' });
    await repository.finishAndName(done, now, { title: 'Hello', source: 'first_message' });
    await repository.finish(done, now);
    expect(texts).to.have.length(2);
    for (const text of texts) expect(shape(CHAT_FINISH)).to.equal(shape(text));
  });

  it('messages.append, as saveMessage stores a message sent without a parent or a time', async () => {
    const texts: string[] = [];
    const saved = Message.create({ messageId: 'w', conversationId: 'chat-1', userId: 'user-1', role: 'user', text: 'Noted.', createdAt: now, metadata: {}, replyTo: null, parentId: null });
    await new PostgresMessageRepository(recordingStatements(texts)).append(conversation, [saved], { roots: new Set(), stamped: new Set(['w']) });
    expect(texts).to.have.length(1);
    expect(shape(SAVE_MESSAGE)).to.equal(shape(texts[0]!));
  });
});

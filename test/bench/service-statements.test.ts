import { expect } from 'chai';
import type { Sql } from 'sql-template-tag';
import { CHAT_BEGIN, CHAT_FINISH, SAVE_MESSAGE } from '../../bench/baselines/service-statements.js';
import { PostgresMessageRepository } from '../../src/adapters/persistence/postgres/postgres-message-repository.js';
import { PostgresReplyRepository } from '../../src/adapters/persistence/postgres/postgres-reply-repository.js';
import { openReply } from '../../src/domain/reply.js';
import { Conversation } from '../../src/domain/conversation.js';
import { Message } from '../../src/domain/message.js';
import { recordingStatements } from '../support/recording-statements.js';

/** A statement's text with its comments dropped, every parameter written `$`, and spaces made one. */
const shape = (text: string) =>
  text
    .replace(/\/\*.*?\*\//gs, ' ')
    .replace(/--[^\n]*/g, ' ')
    .replace(/\$\d+/g, '$')
    .replace(/\s+/g, ' ')
    .replace(/\s*([(),])\s*/g, '$1')
    .trim();

describe('bench: the hand-written PostgreSQL server runs the service\'s statements for saveMessage and a chat turn', () => {
  const now = new Date('2026-11-29T05:00:00Z');
  const conversation = Conversation.create({ conversationId: 'chat-1', userId: 'user-1', createdAt: now });
  const question = Message.create({ messageId: 'q', conversationId: 'chat-1', userId: 'user-1', role: 'user', text: 'Hello', createdAt: now, metadata: {}, replyTo: null, parentId: null });
  const reply = openReply(question, 'r', 'offline-eliza', now);

  it('replies.begin, as POST /v1/chat begins a turn (no parent named, no context)', async () => {
    const sent: Sql[] = [];
    await new PostgresReplyRepository(recordingStatements(sent)).begin({ conversation, userMessage: question, parentIfStored: null, reply, historyLimit: 20 });
    expect(sent).to.have.length(1);
    expect(shape(CHAT_BEGIN)).to.equal(shape(sent[0]!.text));
  });

  it('replies.finish, named or not', async () => {
    const sent: Sql[] = [];
    const repository = new PostgresReplyRepository(recordingStatements(sent));
    const done = reply.with({ text: 'Hi there.', finishReason: 'stop' });
    await repository.finishAndName(done, now, { title: 'Hello', source: 'first_message' });
    await repository.finish(done, now);
    expect(sent).to.have.length(2);
    for (const query of sent) expect(shape(CHAT_FINISH)).to.equal(shape(query.text));
  });

  it('messages.append, as saveMessage stores a message sent without a parent or a time', async () => {
    const sent: Sql[] = [];
    const saved = Message.create({ messageId: 'w', conversationId: 'chat-1', userId: 'user-1', role: 'user', text: 'Noted.', createdAt: now, metadata: {}, replyTo: null, parentId: null });
    await new PostgresMessageRepository(recordingStatements(sent)).append(conversation, [saved], { roots: new Set(), stamped: new Set(['w']) });
    expect(sent).to.have.length(1);
    expect(shape(SAVE_MESSAGE)).to.equal(shape(sent[0]!.text));
  });
});

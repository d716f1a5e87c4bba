import { expect } from 'chai';
import { InMemoryUnitOfWork } from '../../../src/adapters/persistence/memory/in-memory-unit-of-work.js';
import { aConversation, aMessage, aSession } from '../../support/builders.js';

/** What the bound leaves behind, seen from the store's own indexes. */
describe('in-memory store bound (indexes)', () => {
  const sizes = (unitOfWork: InMemoryUnitOfWork) => {
    const { store } = unitOfWork;
    return {
      users: store.users.size,
      conversations: store.conversations.size,
      messages: store.messages.size,
      replies: store.replies.size,
      sessions: store.sessions.size,
      timelines: store.timelines.size,
      sessionsOf: store.sessionsOf.size,
      recency: store.recency.size,
    };
  };
  const empty = { users: 0, conversations: 0, messages: 0, replies: 0, sessions: 0, timelines: 0, sessionsOf: 0, recency: 0 };

  it('a rolled-back write leaves no trace in any index', async () => {
    const unitOfWork = new InMemoryUnitOfWork(undefined, { maxMessages: 10 });
    const conversation = aConversation();
    await unitOfWork
      .run(async (r) => {
        await r.messages.append(conversation, [aMessage(conversation)]);
        await r.sessions.save(aSession(conversation));
        throw new Error('fails after writing');
      })
      .catch(() => undefined);
    expect(sizes(unitOfWork)).to.deep.equal(empty);
  });

  it('a conversation that alone outgrows the bound is dropped too, leaving nothing behind', async () => {
    const warnings: unknown[] = [];
    const unitOfWork = new InMemoryUnitOfWork(undefined, { maxMessages: 3, logger: { warn: (fields: unknown) => void warnings.push(fields) } as never });
    const conversation = aConversation();
    const question = aMessage(conversation);
    await unitOfWork.run(async (r) => {
      await r.messages.append(conversation, [question, aMessage(conversation, { role: 'assistant', replyTo: question.messageId })]);
      await r.sessions.save(aSession(conversation));
    });
    expect(sizes(unitOfWork)).to.include({ messages: 2, replies: 1, sessions: 1, conversations: 1 });
    await unitOfWork.run((r) => r.messages.append(conversation, [aMessage(conversation), aMessage(conversation)]));
    expect(sizes(unitOfWork)).to.deep.equal(empty);
    expect(warnings).to.deep.equal([{ droppedConversations: 1, droppedMessages: 4, droppedSessions: 1, maxMessages: 3 }]);
  });

  it('drops in order of last write, reporting later drops at most once a minute', async () => {
    const warnings: unknown[] = [];
    const unitOfWork = new InMemoryUnitOfWork(undefined, { maxMessages: 4, logger: { warn: (fields: unknown) => void warnings.push(fields) } as never });
    const conversations = Array.from({ length: 6 }, () => aConversation());
    for (const conversation of conversations) {
      await unitOfWork.run(async (r) => {
        await r.messages.append(conversation, [aMessage(conversation), aMessage(conversation)]);
      });
    }
    const kept = [...unitOfWork.store.conversations.keys()];
    expect(kept).to.deep.equal(conversations.slice(4).map((c) => c.conversationId));
    expect(warnings).to.have.length(1);
  });
});

import { expect } from 'chai';
import { aConversation, aMessage, aSession } from '../support/builders.js';
import { claimed, type MakeStore, withStore } from './store-fixture.js';

export function unitOfWorkContract(make: MakeStore): void {
  describe('UnitOfWork contract', () => {
    const store = withStore(make);

    it('returns what the work returns, with its writes stored', async () => {
      const conversation = aConversation();
      const result = await store.run(async (r) => {
        await claimed(r, conversation);
        return 42;
      });
      expect(result).to.equal(42);
      expect(await store.run((r) => r.conversations.findById(conversation.conversationId))).to.not.equal(null);
    });

    it('stores nothing of a unit of work that throws', async () => {
      const conversation = aConversation();
      const message = aMessage(conversation);
      const session = aSession(conversation);
      const failure = new Error('boom');
      const attempt = store.run(async (r) => {
        await r.messages.append(conversation, [message]);
        await r.sessions.save(session);
        throw failure;
      });
      await attempt.then(
        () => expect.fail('should have thrown'),
        (error: unknown) => expect(error).to.equal(failure),
      );
      await store.run(async (r) => {
        expect(await r.conversations.findById(conversation.conversationId)).to.equal(null);
        expect((await r.conversations.listByUser(conversation.userId, 10, null, false)).items).to.deep.equal([]);
        expect(await r.messages.findById(message.messageId)).to.equal(null);
        expect(await r.sessions.findById(session.sessionId)).to.equal(null);
      });
    });

    it('undoes deletes and updates of a failed unit of work', async () => {
      const conversation = aConversation();
      const message = aMessage(conversation);
      const session = aSession(conversation, { title: 'kept' });
      await store.run(async (r) => {
        await r.messages.append(conversation, [message]);
        await r.sessions.save(session);
      });
      await store
        .run(async (r) => {
          await r.messages.deleteOwned(conversation.conversationId, conversation.userId, null);
          await r.sessions.save(session.update({ title: 'changed' }, new Date()));
          throw new Error('boom');
        })
        .catch(() => undefined);
      expect(await store.run((r) => r.messages.count(conversation.conversationId))).to.equal(1);
      expect((await store.run((r) => r.sessions.findById(session.sessionId)))?.title).to.equal('kept');
    });
  });
}

import { expect } from 'chai';
import { Conversation } from '../../src/domain/conversation.js';
import { Message } from '../../src/domain/message.js';
import { aConversation, aMessage, aSession, at } from '../support/builders.js';
import { uid } from '../support/ids.js';
import { claimed, type MakeStore, withStore } from './store-fixture.js';

export function conversationRepositoryContract(make: MakeStore): void {
  describe('ConversationRepository contract', () => {
    const store = withStore(make);
    const stored = (conversation: Conversation) => store.run((r) => claimed(r, conversation));

    it('claims a new conversation and finds it', async () => {
      const conversation = aConversation();
      const claimed = await stored(conversation);
      expect(claimed.userId).to.equal(conversation.userId);
      const found = await store.run((r) => r.conversations.findById(conversation.conversationId));
      expect(found?.userId).to.equal(conversation.userId);
      expect(found?.createdAt.getTime()).to.equal(conversation.createdAt.getTime());
    });

    it('a second claim of the same id returns the first owner', async () => {
      const first = aConversation();
      await stored(first);
      const rival = aConversation(uid('rival'), first.conversationId);
      const result = await stored(rival);
      expect(result.userId).to.equal(first.userId);
    });

    it('racing claims by two users give the conversation to exactly one', async () => {
      const id = uid('conv');
      const [a, b] = await Promise.all([stored(aConversation(uid('a'), id)), stored(aConversation(uid('b'), id))]);
      expect(a.userId).to.equal(b.userId);
    });

    it('lists a user\'s conversations most recently active first, in pages', async () => {
      const userId = uid('user');
      const conversations = [aConversation(userId), aConversation(userId), aConversation(userId)];
      for (const c of conversations) await stored(c);
      const times = ['2099-01-01T00:00:00.000Z', '2099-03-01T00:00:00.000Z', '2099-02-01T00:00:00.000Z'];
      await store.run(async (r) => {
        for (const [i, c] of conversations.entries()) {
          // A message appended with activity at times[i] (a candidate created then).
          const activeThen = Conversation.create({ conversationId: c.conversationId, userId, createdAt: at(times[i]!) });
          await r.messages.append(activeThen, [aMessage(c, { text: `first of ${i}` })]);
        }
      });
      await stored(aConversation()); // someone else's
      const first = await store.run((r) => r.conversations.listByUser(userId, 2, null, false));
      expect(first.items.map((s) => s.conversation.conversationId)).to.deep.equal([
        conversations[1]!.conversationId,
        conversations[2]!.conversationId,
      ]);
      expect(first.next).to.not.equal(null);
      const second = await store.run((r) => r.conversations.listByUser(userId, 2, first.next, false));
      expect(second.items.map((s) => s.conversation.conversationId)).to.deep.equal([conversations[0]!.conversationId]);
      expect(second.next).to.equal(null);
      expect(second.items[0]!.messageCount).to.equal(1);
      expect(second.items[0]!.title).to.equal('first of 0');
      expect(second.items[0]!.lastMessageAt?.toISOString()).to.equal(times[0]);
    });

    it('orders conversations active at the same moment by id, descending by code point (as PostgreSQL\'s "C" collation), in pages', async () => {
      const userId = uid('user');
      // UTF-16 units would put U+FF01 after U+1F600 (a surrogate pair); code points put it before.
      const [fullwidth, emoji] = [`k-\uFF01-${userId}`, `k-😀-${userId}`];
      const when = at('2099-05-01T00:00:00.000Z');
      await store.run(async (r) => {
        for (const id of [fullwidth, emoji]) {
          const conversation = Conversation.create({ conversationId: id, userId, createdAt: when });
          await r.messages.append(conversation, [aMessage(conversation, { text: 'hello', createdAt: when })]);
        }
      });
      const listed = await store.run((r) => r.conversations.listByUser(userId, 10, null, false));
      expect(listed.items.map((s) => s.conversation.conversationId)).to.deep.equal([emoji, fullwidth]);
      const first = await store.run((r) => r.conversations.listByUser(userId, 1, null, false));
      const second = await store.run((r) => r.conversations.listByUser(userId, 1, first.next, false));
      expect(second.items.map((s) => s.conversation.conversationId)).to.deep.equal([fullwidth]);
    });

    it('says which reply named a conversation, with its title, until its user renames it', async () => {
      const conversation = aConversation();
      const question = aMessage(conversation);
      const reply = Message.create({ messageId: uid('reply'), conversationId: conversation.conversationId, userId: conversation.userId, role: 'assistant', text: '', createdAt: new Date(question.createdAt.getTime() + 1), metadata: {}, replyTo: question.messageId, parentId: question.messageId, status: 'in_progress', progressAt: new Date() });
      await store.run((r) => r.replies.begin({ conversation, userMessage: question, reply, historyLimit: 5 }));
      const key = { conversationId: conversation.conversationId, replyId: reply.messageId };
      const other = { conversationId: conversation.conversationId, replyId: uid('reply') };
      expect([...(await store.run((r) => r.conversations.namedBy([key])))]).to.deep.equal([]);
      const done = reply.with({ text: 'Hello', status: 'completed', progressAt: null, finishReason: 'stop' });
      const finished = await store.run((r) => r.replies.finishAndName(done, new Date(), { title: 'Trip plans', source: 'first_message' }));
      expect(finished.named).to.equal(true);
      expect(finished.message?.text).to.equal('Hello');
      expect([...(await store.run((r) => r.conversations.namedBy([key, other])))]).to.deep.equal([[reply.messageId, { title: 'Trip plans', source: 'first_message' }]]);
      await store.run((r) => r.conversations.nameUnlessUserDid(conversation.conversationId, 'A trip to Rome', 'generated'));
      expect((await store.run((r) => r.conversations.namedBy([key]))).get(reply.messageId)).to.deep.equal({ title: 'A trip to Rome', source: 'generated' });
      await store.run((r) => r.conversations.update(conversation.conversationId, conversation.userId, { title: 'Mine' }));
      expect([...(await store.run((r) => r.conversations.namedBy([key])))]).to.deep.equal([]);
      expect([...(await store.run((r) => r.conversations.namedBy([])))]).to.deep.equal([]);
    });

    it('a first reply finished after its user named the conversation does not name it, and says so', async () => {
      const conversation = aConversation();
      const question = aMessage(conversation);
      const reply = Message.create({ messageId: uid('reply'), conversationId: conversation.conversationId, userId: conversation.userId, role: 'assistant', text: '', createdAt: new Date(question.createdAt.getTime() + 1), metadata: {}, replyTo: question.messageId, parentId: question.messageId, status: 'in_progress', progressAt: new Date() });
      await store.run((r) => r.replies.begin({ conversation, userMessage: question, reply, historyLimit: 5 }));
      await store.run((r) => r.conversations.update(conversation.conversationId, conversation.userId, { title: 'Mine' }));
      const finished = await store.run((r) => r.replies.finishAndName(reply.with({ text: 'Hi', status: 'completed', progressAt: null, finishReason: 'stop' }), new Date(), { title: 'Generated', source: 'generated' }));
      expect(finished.named).to.equal(false);
      expect((await store.run((r) => r.conversations.summary(conversation.conversationId)))?.title).to.equal('Mine');
    });

    it('titles a conversation by its latest session title', async () => {
      const conversation = aConversation();
      await stored(conversation);
      await store.run(async (r) => {
        await r.messages.append(conversation, [aMessage(conversation, { text: 'hello there' })]);
        await r.sessions.save(aSession(conversation, { title: 'Older', updatedAt: at('2026-01-01T00:00:00.000Z') }));
        await r.sessions.save(aSession(conversation, { title: 'Newer', updatedAt: at('2026-02-01T00:00:00.000Z') }));
      });
      const page = await store.run((r) => r.conversations.listByUser(conversation.userId, 10, null, false));
      expect(page.items[0]!.title).to.equal('Newer');
    });

    it('a conversation without messages has no title from messages and no last_message_at', async () => {
      const conversation = aConversation();
      await stored(conversation);
      const page = await store.run((r) => r.conversations.listByUser(conversation.userId, 10, null, false));
      expect(page.items[0]).to.include({ title: null, lastMessageAt: null, messageCount: 0 });
    });
  });
}

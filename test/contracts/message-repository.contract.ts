import { expect } from 'chai';
import type { Conversation } from '../../src/domain/conversation.js';
import type { Message } from '../../src/domain/message.js';
import type { MessagePage, MessagePosition, SortOrder } from '../../src/application/ports/message-repository.js';
import { aConversation, aMessage, at } from '../support/builders.js';
import { uid } from '../support/ids.js';
import { claimed, conversationOf, type MakeStore, withStore } from './store-fixture.js';

export function messageRepositoryContract(make: MakeStore): void {
  describe('MessageRepository contract', () => {
    const store = withStore(make);

    const newConversation = () => store.run((r) => claimed(r, aConversation()));
    /** Appends to the messages' conversation; the ids inserted. */
    const insert = (messages: Message[]) =>
      store.run(async (r) => (await r.messages.append(conversationOf(messages[0]!), messages)).inserted.map((m) => m.messageId));
    const page = (conversation: Conversation, order: SortOrder, size: number, after: MessagePosition | null) =>
      store.run(async (r) => (await r.messages.pageOwned(conversation.conversationId, conversation.userId, order, size, after)).page);
    /** Every message of the conversation, reading pages of `size` in `order`. */
    const readAll = async (conversation: Conversation, order: SortOrder, size: number) => {
      const seen: string[] = [];
      let after: MessagePosition | null = null;
      for (let pages = 0; pages < 1000; pages++) {
        const next: MessagePage = await page(conversation, order, size, after);
        expect(next.messages.length).to.be.at.most(size);
        seen.push(...next.messages.map((m) => m.messageId));
        if (!next.next) return seen;
        after = next.next;
      }
      throw new Error('pagination did not end');
    };

    it('stores a message with every field intact', async () => {
      const conversation = await newConversation();
      const message = aMessage(conversation, {
        role: 'assistant',
        text: 'Grüße 👋 — "quoted"\nnew line',
        createdAt: at('2026-11-22T10:15:30.123Z'),
        metadata: { model: 'm', nested: { list: [1, 'two', null, true] } },
        replyTo: uid('msg'),
      });
      expect(await insert([message])).to.deep.equal([message.messageId]);
      const found = await store.run((r) => r.messages.findById(message.messageId));
      expect(found?.toProps()).to.deep.equal(message.toProps());
    });

    it('finds many messages by id at once: those that exist, each once, whatever their conversation', async () => {
      const [one, other] = [await newConversation(), await newConversation()];
      const a = aMessage(one, { text: 'first' });
      const b = aMessage(other, { text: 'second' });
      await insert([a]);
      await insert([b]);
      const found = await store.run((r) => r.messages.findByIds([b.messageId, uid('nothing'), a.messageId, b.messageId]));
      expect(found.map((m) => m.toProps()).sort((x, y) => x.text.localeCompare(y.text))).to.deep.equal([a.toProps(), b.toProps()]);
      expect(await store.run((r) => r.messages.findByIds([]))).to.deep.equal([]);
    });

    it('with an id already stored writes nothing, and returns the stored message as taken', async () => {
      const conversation = await newConversation();
      const first = aMessage(conversation);
      await insert([first]);
      const second = aMessage(conversation);
      const again = aMessage(conversation, { messageId: first.messageId, text: 'other' });
      const result = await store.run((r) => r.messages.append(conversation, [again, second]));
      expect(result.inserted).to.deep.equal([]);
      expect(result.taken.map((m) => [m.messageId, m.text])).to.deep.equal([[first.messageId, 'hello']]);
      expect(await store.run((r) => r.messages.findById(second.messageId))).to.equal(null);
      expect(await insert([second])).to.deep.equal([second.messageId]);
      expect((await store.run((r) => r.messages.findById(first.messageId)))?.text).to.equal('hello');
    });

    it("claims a new conversation with its messages, and writes nothing in another user's", async () => {
      const conversation = aConversation();
      const message = aMessage(conversation);
      const result = await store.run((r) => r.messages.append(conversation, [message]));
      expect(result.conversation?.userId).to.equal(conversation.userId);
      expect(result.inserted).to.deep.equal([{ messageId: message.messageId, parentId: null, createdAt: message.createdAt }]);
      const rival = aConversation(uid('rival'), conversation.conversationId);
      const refused = await store.run((r) => r.messages.append(rival, [aMessage(rival)]));
      expect(refused.conversation?.userId).to.equal(conversation.userId);
      expect(refused.inserted).to.deep.equal([]);
      expect(await store.run((r) => r.messages.count(conversation.conversationId))).to.equal(1);
    });

    it("reads no page of another user's conversation, but says whose it is", async () => {
      const conversation = await newConversation();
      await insert([aMessage(conversation)]);
      const result = await store.run((r) => r.messages.pageOwned(conversation.conversationId, uid('intruder'), 'asc', 10, null));
      expect(result.conversation?.userId).to.equal(conversation.userId);
      expect(result.page).to.deep.equal({ messages: [], next: null });
    });

    it('finds the reply to a user message', async () => {
      const conversation = await newConversation();
      const question = aMessage(conversation);
      const answer = aMessage(conversation, { role: 'assistant', replyTo: question.messageId });
      await insert([question, answer]);
      expect((await store.run((r) => r.messages.findReplyTo(question.messageId)))?.messageId).to.equal(answer.messageId);
      expect(await store.run((r) => r.messages.findReplyTo(answer.messageId))).to.equal(null);
    });

    it('keeps at most one reply in progress per user message; finished ones may be several (branches), the latest found', async () => {
      const conversation = await newConversation();
      const question = aMessage(conversation);
      const first = aMessage(conversation, { role: 'assistant', replyTo: question.messageId, parentId: question.messageId, text: 'first' });
      const second = aMessage(conversation, { role: 'assistant', replyTo: question.messageId, parentId: question.messageId, text: 'second', createdAt: new Date(first.createdAt.getTime() + 1) });
      await insert([question, first]);
      expect(await insert([second])).to.deep.equal([second.messageId]);
      expect((await store.run((r) => r.messages.findReplyTo(question.messageId)))?.text).to.equal('second');
      const running = (text: string) =>
        aMessage(conversation, { role: 'assistant', replyTo: question.messageId, parentId: question.messageId, text: '', status: 'in_progress', progressAt: new Date(), metadata: { text } });
      const [a, b] = [running('a'), running('b')];
      expect(await insert([a])).to.deep.equal([a.messageId]);
      expect(await insert([b])).to.deep.equal([]);
      expect(await store.run((r) => r.messages.findById(b.messageId))).to.equal(null);
    });

    it('orders by created_at, then insertion order, in both directions', async () => {
      const conversation = await newConversation();
      const same = at('2026-11-22T10:00:00.000Z');
      const late = aMessage(conversation, { createdAt: at('2026-11-22T12:00:00.000Z') });
      const tie1 = aMessage(conversation, { createdAt: same });
      const tie2 = aMessage(conversation, { createdAt: same });
      const early = aMessage(conversation, { createdAt: at('2026-11-22T08:00:00.000Z') });
      await insert([late, tie1]);
      await insert([tie2, early]);
      const expected = [early, tie1, tie2, late].map((m) => m.messageId);
      const asc = await page(conversation, 'asc', 10, null);
      expect(asc.messages.map((m) => m.messageId)).to.deep.equal(expected);
      expect(asc.next).to.equal(null);
      const desc = await page(conversation, 'desc', 10, null);
      expect(desc.messages.map((m) => m.messageId)).to.deep.equal([...expected].reverse());
    });

    it('pages neither overlap nor skip, in either order, with ties across page edges', async () => {
      const conversation = await newConversation();
      const messages = Array.from({ length: 23 }, (_, i) =>
        aMessage(conversation, { createdAt: at(`2026-11-22T10:00:0${i % 4}.000Z`), text: `m${i}` }),
      );
      await insert(messages);
      const asc = await readAll(conversation, 'asc', 5);
      expect(asc).to.have.length(23);
      expect(new Set(asc).size).to.equal(23);
      const desc = await readAll(conversation, 'desc', 4);
      expect(desc).to.deep.equal([...asc].reverse());
      expect(await readAll(conversation, 'asc', 23)).to.deep.equal(asc);
    });

    it('the last full page has no next position', async () => {
      const conversation = await newConversation();
      await insert([aMessage(conversation), aMessage(conversation)]);
      const first = await page(conversation, 'asc', 2, null);
      expect(first.messages).to.have.length(2);
      expect(first.next).to.equal(null);
    });

    it('an unknown conversation has an empty page and a count of zero', async () => {
      const unknown = await store.run((r) => r.messages.pageOwned(uid('none'), uid('user'), 'asc', 10, null));
      expect(unknown).to.deep.equal({ conversation: null, headId: null, page: { messages: [], next: null } });
      expect(await store.run((r) => r.messages.count(uid('none')))).to.equal(0);
    });

    it('deletes listed ids of that conversation only, and counts what it deleted', async () => {
      const conversation = await newConversation();
      const other = await newConversation();
      const [a, b, c] = [aMessage(conversation), aMessage(conversation), aMessage(conversation)];
      const foreign = aMessage(other);
      await insert([a, b, c]);
      await insert([foreign]);
      const { deleted } = await store.run((r) =>
        r.messages.deleteOwned(conversation.conversationId, conversation.userId, [a.messageId, c.messageId, foreign.messageId, uid('x')]),
      );
      expect(deleted).to.equal(2);
      expect(await store.run((r) => r.messages.count(conversation.conversationId))).to.equal(1);
      expect(await store.run((r) => r.messages.findById(foreign.messageId))).to.not.equal(null);
      expect(await store.run((r) => r.messages.findById(a.messageId))).to.equal(null);
    });

    it('deletes all messages of a conversation', async () => {
      const conversation = await newConversation();
      await insert([aMessage(conversation), aMessage(conversation), aMessage(conversation)]);
      const deleteAll = (userId: string) => store.run((r) => r.messages.deleteOwned(conversation.conversationId, userId, null));
      expect((await deleteAll(uid('intruder'))).deleted).to.equal(0);
      expect((await deleteAll(conversation.userId)).deleted).to.equal(3);
      expect(await store.run((r) => r.messages.count(conversation.conversationId))).to.equal(0);
      expect((await deleteAll(conversation.userId)).deleted).to.equal(0);
    });

    it('parallel inserts into one conversation lose nothing and keep one stable order', async () => {
      const conversation = await newConversation();
      const messages = Array.from({ length: 200 }, (_, i) => aMessage(conversation, { text: `parallel ${i}` }));
      await Promise.all(messages.map((m) => insert([m])));
      expect(await store.run((r) => r.messages.count(conversation.conversationId))).to.equal(200);
      const first = await readAll(conversation, 'asc', 50);
      expect(new Set(first).size).to.equal(200);
      expect(await readAll(conversation, 'asc', 7)).to.deep.equal(first);
    });
  });
}

import { expect } from 'chai';
import type { ImportedConversation } from '../../src/application/ports/message-repository.js';
import { Conversation } from '../../src/domain/conversation.js';
import type { Message } from '../../src/domain/message.js';
import { aMessage } from '../support/builders.js';
import { uid } from '../support/ids.js';
import { type MakeStore, withStore } from './store-fixture.js';

const at = (minute: number) => new Date(Date.UTC(2024, 0, 2, 3, minute, 0, 123));

/** Writing a whole imported conversation (MessageRepository.importConversation), the same in every store. */
export function conversationImportContract(make: MakeStore): void {
  describe('conversation import contract', () => {
    const store = withStore(make);

    /** root → a → b (the head), and a fork root → a' → b' */
    function imported(userId = uid('user'), conversationId = uid('conv')): ImportedConversation & { ids: { root: string; a: string; b: string; a2: string; b2: string } } {
      const conversation = Conversation.create({ conversationId, userId, createdAt: at(0) });
      const ids = { root: uid('m'), a: uid('m'), b: uid('m'), a2: uid('m'), b2: uid('m') };
      const m = (id: string, parentId: string | null, minute: number, text: string): Message =>
        aMessage(conversation, { messageId: id, parentId, createdAt: at(minute), text, role: minute % 2 === 0 ? 'user' : 'assistant' });
      const messages = [m(ids.root, null, 1, 'root'), m(ids.a, ids.root, 2, 'a'), m(ids.b, ids.a, 3, 'b'), m(ids.a2, ids.root, 4, "a'"), m(ids.b2, ids.a2, 5, "b' مرحبا 🎉")];
      return { conversation, title: 'Imported', titleSource: 'user', pinned: true, archived: false, activeAt: at(5), messages, headId: ids.b, ids };
    }

    it('writes the whole tree with its ids, times, title and the head given', async () => {
      const input = imported();
      const outcome = await store.run((r) => r.messages.importConversation(input));
      expect(outcome).to.deep.equal({ outcome: 'created', created: 5, skipped: 0, conflicts: [] });
      const summary = await store.run((r) => r.conversations.summary(input.conversation.conversationId));
      expect(summary).to.include({ title: 'Imported', titleSource: 'user', headId: input.ids.b, pinned: true, archived: false, messageCount: 5 });
      expect(summary?.conversation.createdAt.toISOString()).to.equal(at(0).toISOString());
      expect(summary?.lastMessageAt?.toISOString()).to.equal(at(5).toISOString());
      const page = await store.run((r) => r.messages.pageBranch(input.conversation.conversationId, input.conversation.userId, { leafId: null, order: 'asc', limit: 10, after: null }));
      expect(page.messages.map((e) => e.message.text)).to.deep.equal(['root', 'a', 'b']);
      expect(page.messages[1]?.siblings).to.include({ count: 2, index: 0 });
      const other = await store.run((r) => r.messages.pageBranch(input.conversation.conversationId, input.conversation.userId, { leafId: input.ids.b2, order: 'asc', limit: 10, after: null }));
      expect(other.messages.map((e) => e.message.text)).to.deep.equal(['root', "a'", "b' مرحبا 🎉"]);
      const stored = await store.run((r) => r.messages.findById(input.ids.b2));
      expect(stored?.createdAt.toISOString()).to.equal(at(5).toISOString());
      expect(stored?.parentId).to.equal(input.ids.a2);
    });

    it('a second import creates nothing and keeps the head', async () => {
      const input = imported();
      await store.run((r) => r.messages.importConversation(input));
      const again = await store.run((r) => r.messages.importConversation({ ...input, headId: input.ids.b2 }));
      expect(again).to.deep.equal({ outcome: 'existing', created: 0, skipped: 5, conflicts: [] });
      expect((await store.run((r) => r.conversations.summary(input.conversation.conversationId)))?.headId).to.equal(input.ids.b);
    });

    it('adds only the messages a conversation of the same user lacks', async () => {
      const input = imported();
      await store.run((r) => r.messages.importConversation({ ...input, messages: input.messages.slice(0, 3) }));
      const more = await store.run((r) => r.messages.importConversation({ ...input, headId: input.ids.b2 }));
      expect(more).to.deep.equal({ outcome: 'existing', created: 2, skipped: 3, conflicts: [] });
      expect((await store.run((r) => r.conversations.summary(input.conversation.conversationId)))?.headId).to.equal(input.ids.b2);
    });

    it("writes nothing into another user's conversation, nor over ids stored in another conversation", async () => {
      const input = imported();
      await store.run((r) => r.messages.importConversation(input));
      const foreign = await store.run((r) => r.messages.importConversation({ ...imported(uid('user'), input.conversation.conversationId) }));
      expect(foreign.outcome).to.equal('foreign');
      const elsewhere = imported(input.conversation.userId);
      const clash = { ...elsewhere, messages: [...elsewhere.messages, aMessage(elsewhere.conversation, { messageId: input.ids.a, parentId: elsewhere.ids.b2, createdAt: at(9) })] };
      const refused = await store.run((r) => r.messages.importConversation(clash));
      expect(refused.conflicts).to.deep.equal([input.ids.a]);
      expect(await store.run((r) => r.conversations.summary(elsewhere.conversation.conversationId))).to.equal(null);
      expect(await store.run((r) => r.messages.count(elsewhere.conversation.conversationId))).to.equal(0);
    });
  });
}

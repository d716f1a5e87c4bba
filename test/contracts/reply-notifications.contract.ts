import { expect } from 'chai';
import { Message } from '../../src/domain/message.js';
import { aConversation, aMessage } from '../support/builders.js';
import { uid } from '../support/ids.js';
import { type MakeStore, withStore } from './store-fixture.js';

/** Resolves with how many times `count()` has grown past `from`, once it has, or rejects after `ms`. */
async function grows(count: () => number, from: number, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (count() <= from) {
    if (Date.now() > deadline) throw new Error('no notice arrived');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * ReplyNotifications over a store: every write of a reply reaches its watchers (and only
 * theirs), and a stop asked for reaches every stop listener. For stores that have them.
 */
export function replyNotificationsContract(make: MakeStore): void {
  describe('ReplyNotifications contract', () => {
    const store = withStore(make);
    const notifications = () => {
      const found = store.notifications;
      if (!found) throw new Error('this store has no notifications');
      return found;
    };

    it("announces each write of a reply to that reply's watchers only, until they stop watching", async () => {
      const conversation = aConversation();
      const userMessage = aMessage(conversation);
      const reply = Message.create({
        messageId: uid('reply'), conversationId: conversation.conversationId, userId: conversation.userId, role: 'assistant', text: '',
        createdAt: new Date(), metadata: {}, replyTo: userMessage.messageId, status: 'in_progress', progressAt: new Date(),
      });
      let mine = 0;
      let others = 0;
      const unwatch = notifications().watch(reply.messageId, () => mine++);
      const unwatchOther = notifications().watch(uid('other'), () => others++);
      try {
        await store.run((r) => r.replies.begin({ conversation, userMessage, reply, historyLimit: 0 }));
        let seen = mine;
        await store.run((r) => r.replies.advance(reply.messageId, 'Some', new Date()));
        await grows(() => mine, seen);
        seen = mine;
        await store.run((r) => r.replies.finish(reply.with({ text: 'Some text' }), new Date()));
        await grows(() => mine, seen);
      } finally {
        unwatch();
        unwatchOther();
      }
      const after = mine;
      await store.run((r) => r.replies.advance(reply.messageId, 'ignored', new Date()));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(mine, 'no notice after unwatch').to.equal(after);
      expect(others).to.equal(0);
    });

    it('a stop asked for reaches every stop listener with the reply id', async () => {
      const heard: string[][] = [[], []];
      const off = heard.map((list) => notifications().onStopRequest((replyId) => list.push(replyId)));
      const replyId = uid('reply');
      try {
        await notifications().requestStop(replyId);
        await grows(() => Math.min(...heard.map((list) => list.filter((id) => id === replyId).length)), 0);
      } finally {
        off.forEach((stop) => stop());
      }
      expect(heard).to.deep.equal([[replyId], [replyId]]);
    });
  });
}

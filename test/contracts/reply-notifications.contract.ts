import { expect } from 'chai';
import type { ReplyNews } from '../../src/application/ports/reply-notifications.js';
import { Message } from '../../src/domain/message.js';
import { aConversation, aMessage } from '../support/builders.js';
import { uid } from '../support/ids.js';
import { type MakeStore, withStore } from './store-fixture.js';

/** Resolves once `done()` holds, or rejects after `ms`. */
async function until(done: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('no news arrived');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The text a follower makes of pieces, placed by their positions (code points). */
function assemble(news: ReplyNews[]): string {
  const points: string[] = [];
  for (const n of news) if (n.type === 'piece') [...n.text].forEach((point, i) => (points[n.from + i] = point));
  return points.join('');
}

/**
 * ReplyNotifications over a store: published pieces and ends reach the reply's watchers (and
 * only theirs) whatever their size, follows and stops reach every listener, and the store's own
 * writes announce nothing. For stores that have them.
 */
export function replyNotificationsContract(make: MakeStore): void {
  describe('ReplyNotifications contract', () => {
    const store = withStore(make);
    const notifications = () => {
      const found = store.notifications;
      if (!found) throw new Error('this store has no notifications');
      return found;
    };

    it("delivers each piece and end published to that reply's watchers only, until they stop watching", async () => {
      const replyId = uid('reply');
      const mine: ReplyNews[] = [];
      const others: ReplyNews[] = [];
      const unwatch = notifications().watch(replyId, (news) => mine.push(news));
      const unwatchOther = notifications().watch(uid('other'), (news) => others.push(news));
      try {
        notifications().publish({ type: 'piece', replyId, from: 0, text: 'Some ' });
        notifications().publish({ type: 'piece', replyId, from: 5, text: 'text 👋' });
        notifications().publish({ type: 'end', replyId });
        await until(() => mine.some((n) => n.type === 'end'));
      } finally {
        unwatch();
        unwatchOther();
      }
      expect(assemble(mine)).to.equal('Some text 👋');
      expect(mine.at(-1)).to.deep.equal({ type: 'end', replyId });
      notifications().publish({ type: 'piece', replyId, from: 12, text: 'ignored' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(mine.filter((n) => n.type === 'piece' && n.text === 'ignored')).to.deep.equal([]);
      expect(others).to.deep.equal([]);
    });

    it('a piece of any size arrives whole, however it travels (multi-byte text, 60,000 code points)', async () => {
      const replyId = uid('reply');
      const text = 'Grüße 👋 — "quoted"\n'.repeat(3000);
      const news: ReplyNews[] = [];
      const unwatch = notifications().watch(replyId, (n) => news.push(n));
      try {
        notifications().publish({ type: 'piece', replyId, from: 100, text });
        notifications().publish({ type: 'end', replyId });
        await until(() => news.some((n) => n.type === 'end'));
      } finally {
        unwatch();
      }
      expect(assemble(news)).to.equal(text); // the places before 100 are empty
    });

    it('a follow reaches every follow listener with the reply and the position', async () => {
      const heard: [string, number][][] = [[], []];
      const off = heard.map((list) => notifications().onFollow((replyId, from) => list.push([replyId, from])));
      const replyId = uid('reply');
      try {
        notifications().follow(replyId, 42);
        await until(() => heard.every((list) => list.some(([id]) => id === replyId)));
      } finally {
        off.forEach((stop) => stop());
      }
      expect(heard.map((list) => list.filter(([id]) => id === replyId))).to.deep.equal([[[replyId, 42]], [[replyId, 42]]]);
    });

    it('many follows at once (more than one notice holds) each reach the listeners, with their positions', async () => {
      const heard = new Map<string, number[]>();
      const off = notifications().onFollow((replyId, from) => heard.set(replyId, [...(heard.get(replyId) ?? []), from]));
      const follows = Array.from({ length: 600 }, (_, n) => [uid('reply'), n] as const);
      try {
        for (const [replyId, from] of follows) notifications().follow(replyId, from);
        notifications().follow(follows[0]![0], 7); // the same reply from another position
        await until(() => follows.every(([replyId]) => heard.has(replyId)) && heard.get(follows[0]![0])!.length === 2);
      } finally {
        off();
      }
      expect(follows.map(([replyId]) => heard.get(replyId))).to.deep.equal(follows.map(([, from]) => (from === 0 ? [0, 7] : [from])));
    });

    it('a stop asked for reaches every stop listener with the reply id', async () => {
      const heard: string[][] = [[], []];
      const off = heard.map((list) => notifications().onStopRequest((replyId) => list.push(replyId)));
      const replyId = uid('reply');
      try {
        await notifications().requestStop(replyId);
        await until(() => heard.every((list) => list.includes(replyId)));
      } finally {
        off.forEach((stop) => stop());
      }
      expect(heard).to.deep.equal([[replyId], [replyId]]);
    });

    it("the store's writes of a reply announce nothing (news travels apart from them)", async () => {
      const conversation = aConversation();
      const userMessage = aMessage(conversation);
      const reply = Message.create({
        messageId: uid('reply'), conversationId: conversation.conversationId, userId: conversation.userId, role: 'assistant', text: '',
        createdAt: new Date(), metadata: {}, replyTo: userMessage.messageId, status: 'in_progress', progressAt: new Date(),
      });
      const news: ReplyNews[] = [];
      const unwatch = notifications().watch(reply.messageId, (n) => news.push(n));
      try {
        await store.run((r) => r.replies.begin({ conversation, userMessage, reply, historyLimit: 0 }));
        await store.run((r) => r.replies.advance([{ replyId: reply.messageId, from: 0, text: 'Some' }], new Date()));
        await store.run((r) => r.replies.finish(reply.with({ text: 'Some text' }), new Date()));
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        unwatch();
      }
      expect(news).to.deep.equal([]);
    });
  });
}

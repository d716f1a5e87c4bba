import { expect } from 'chai';
import type { Conversation } from '../../src/domain/conversation.js';
import { Message, type MessageProps } from '../../src/domain/message.js';
import { aConversation, aMessage, at } from '../support/builders.js';
import { uid } from '../support/ids.js';
import { type MakeStore, withStore } from './store-fixture.js';

/** A reply just opened for `userMessage`: in progress, empty. */
const aReply = (userMessage: Message, props: Partial<MessageProps> = {}) =>
  Message.create({
    messageId: uid('reply'),
    conversationId: userMessage.conversationId,
    userId: userMessage.userId,
    role: 'assistant',
    text: '',
    createdAt: tick(),
    metadata: { model: 'm' },
    replyTo: userMessage.messageId,
    parentId: userMessage.messageId,
    status: 'in_progress',
    progressAt: new Date(),
    ...props,
  });

const finished = (reply: Message, text: string, reason: string) => reply.with({ text, status: 'completed', progressAt: null, finishReason: reason });

/** Times of the past, each test its own (the PostgreSQL store is shared): a sweep up to them finds only that test's replies. */
const past = (iso: string) => (ms: number) => new Date(at(iso).getTime() + ms);
const later = past('2000-01-01T00:00:00.000Z');
const longBefore = past('1990-01-01T00:00:00.000Z');
/** Creation times that strictly increase, so the order of a conversation does not depend on the clock's resolution. */
let clock = Date.now();
const tick = () => new Date(++clock);

export function replyRepositoryContract(make: MakeStore): void {
  describe('ReplyRepository contract', () => {
    const store = withStore(make);
    const find = (messageId: string) => store.run((r) => r.messages.findById(messageId));

    /** Begins a turn in `conversation` (a new one by default). */
    const begin = async (options: { conversation?: Conversation; userMessage?: Message; reply?: Message; historyLimit?: number } = {}) => {
      const conversation = options.conversation ?? aConversation();
      const userMessage = options.userMessage ?? aMessage(conversation, { text: 'a question', createdAt: tick() });
      const reply = options.reply ?? aReply(userMessage);
      const record = await store.run((r) => r.replies.begin({ conversation, userMessage, reply, historyLimit: options.historyLimit ?? 10 }));
      return { conversation, userMessage, reply, record };
    };
    /** A whole exchange, finished with `reason`. */
    const exchange = async (conversation: Conversation, text: string, reason = 'stop') => {
      const turn = await begin({ conversation, userMessage: aMessage(conversation, { text, createdAt: tick() }) });
      await store.run((r) => r.replies.finish(finished(turn.reply, `re: ${text}`, reason), new Date()));
      return turn;
    };

    describe('begin', () => {
      it('in one step stores the conversation, the user message and the opened reply', async () => {
        const { conversation, userMessage, reply, record } = await begin();
        expect(record.opened).to.equal(true);
        expect(record.taken).to.equal(null);
        expect(record.takenReply).to.equal(null);
        expect(record.history).to.deep.equal([]);
        expect(record.conversation?.conversationId).to.equal(conversation.conversationId);
        expect(record.conversation?.userId).to.equal(conversation.userId);
        expect((await find(userMessage.messageId))?.toProps()).to.deep.equal(userMessage.toProps());
        const opened = await find(reply.messageId);
        expect(opened?.toProps()).to.deep.equal(reply.toProps());
        expect(opened?.status).to.equal('in_progress');
        expect((await store.run((r) => r.messages.findReplyTo(userMessage.messageId)))?.messageId).to.equal(reply.messageId);
      });

      it("reads the conversation's latest finished messages, newest first, as they were before the call", async () => {
        const conversation = aConversation();
        await exchange(conversation, 'one');
        await exchange(conversation, 'two');
        const running = await begin({ conversation, userMessage: aMessage(conversation, { text: 'three', createdAt: tick() }) });
        const { record } = await begin({ conversation, userMessage: aMessage(conversation, { text: 'four', createdAt: tick() }), historyLimit: 3 });
        // 'three' is finished (a user message); its reply, in progress, is not history.
        expect(record.history.map((m) => m.text)).to.deep.equal(['three', 're: two', 'two']);
        expect(record.history.every((m) => m.status === 'completed')).to.equal(true);
        expect(record.history.some((m) => m.messageId === running.reply.messageId)).to.equal(false);
      });

      it("writes nothing in another user's conversation, and says whose it is", async () => {
        const { conversation } = await begin();
        const intruder = aConversation(uid('intruder'), conversation.conversationId);
        const { userMessage, reply, record } = await begin({ conversation: intruder });
        expect(record.opened).to.equal(false);
        expect(record.conversation?.userId).to.equal(conversation.userId);
        expect(await find(userMessage.messageId)).to.equal(null);
        expect(await find(reply.messageId)).to.equal(null);
      });

      it('with a taken message id writes nothing, and returns the stored message and its reply', async () => {
        const first = await begin();
        const again = aMessage(first.conversation, { messageId: first.userMessage.messageId, text: 'other text' });
        const { reply, record } = await begin({ conversation: first.conversation, userMessage: again });
        expect(record.opened).to.equal(false);
        expect(record.taken?.toProps()).to.deep.equal(first.userMessage.toProps());
        expect(record.takenReply?.messageId).to.equal(first.reply.messageId);
        expect(await find(reply.messageId)).to.equal(null);
      });
    });

    describe('begin with context', () => {
      it('stores the context before the question, in order, after the head; the history is what stands above the context', async () => {
        const conversation = aConversation();
        await exchange(conversation, 'one');
        const context = [
          aMessage(conversation, { role: 'system', text: 'Be brief.', createdAt: tick() }),
          aMessage(conversation, { role: 'assistant', text: 'Noted.', createdAt: tick() }),
        ];
        const userMessage = aMessage(conversation, { text: 'two', createdAt: tick() });
        const reply = aReply(userMessage);
        const record = await store.run((r) => r.replies.begin({ conversation, userMessage, context, reply, historyLimit: 10 }));
        expect(record.opened).to.equal(true);
        expect(record.history.map((m) => m.text)).to.deep.equal(['re: one', 'one']);
        expect(record.stored?.parentId).to.equal(context[1]!.messageId);
        const page = await store.run((r) => r.messages.pageBranch(conversation.conversationId, conversation.userId, { leafId: null, order: 'asc', limit: 10, after: null }));
        expect(page.messages.map((m) => m.message.text)).to.deep.equal(['one', 're: one', 'Be brief.', 'Noted.', 'two', '']);
        expect(page.headId).to.equal(reply.messageId);
      });

      it('writes no context when the question is not stored (a taken id)', async () => {
        const first = await begin();
        const context = [aMessage(first.conversation, { text: 'before', createdAt: tick() })];
        const again = aMessage(first.conversation, { messageId: first.userMessage.messageId });
        const record = await store.run((r) => r.replies.begin({ conversation: first.conversation, userMessage: again, context, reply: aReply(again), historyLimit: 10 }));
        expect(record.opened).to.equal(false);
        expect(await find(context[0]!.messageId)).to.equal(null);
      });
    });

    describe('reopen', () => {
      for (const reason of ['cancelled', 'error', 'interrupted']) {
        it(`replaces a reply cut short (${reason}) with the new one`, async () => {
          const { userMessage, reply } = await begin();
          await store.run((r) => r.replies.finish(finished(reply, 'partial', reason), new Date()));
          const next = aReply(userMessage);
          const reopened = await store.run((r) => r.replies.reopen(next));
          expect(reopened?.messageId).to.equal(next.messageId);
          expect(reopened?.status).to.equal('in_progress');
          expect(reopened?.text).to.equal('');
          expect(await find(reply.messageId)).to.equal(null);
          expect((await store.run((r) => r.messages.findReplyTo(userMessage.messageId)))?.messageId).to.equal(next.messageId);
        });
      }

      it('refuses (null) while an answered reply or one in progress stands; opens one where none stands', async () => {
        const answered = await begin();
        await store.run((r) => r.replies.finish(finished(answered.reply, 'whole', 'stop'), new Date()));
        expect(await store.run((r) => r.replies.reopen(aReply(answered.userMessage)))).to.equal(null);
        expect((await find(answered.reply.messageId))?.text).to.equal('whole');

        const running = await begin();
        expect(await store.run((r) => r.replies.reopen(aReply(running.userMessage)))).to.equal(null);
        expect((await find(running.reply.messageId))?.status).to.equal('in_progress');

        const removed = await begin();
        await store.run((r) => r.replies.finish(finished(removed.reply, '', 'cancelled'), new Date()));
        const fresh = aReply(removed.userMessage);
        expect((await store.run((r) => r.replies.reopen(fresh)))?.messageId).to.equal(fresh.messageId);
      });
    });

    describe('advance', () => {
      it('adds text to a reply in progress and marks it alive; empty text only marks it alive', async () => {
        const { reply } = await begin();
        expect(await store.run((r) => r.replies.advance([{ replyId: reply.messageId, from: 0, text: 'Grüße 👋' }], later(1000)))).to.deep.equal([reply.messageId]);
        expect(await store.run((r) => r.replies.advance([{ replyId: reply.messageId, from: [...'Grüße 👋'].length, text: ", it's C:\\ and \\n" }], later(2000)))).to.deep.equal([reply.messageId]);
        let stored = await find(reply.messageId);
        const text = "Grüße 👋, it's C:\\ and \\n";
        expect([stored?.text, stored?.status, stored?.progressAt?.getTime()]).to.deep.equal([text, 'in_progress', later(2000).getTime()]);
        expect(await store.run((r) => r.replies.advance([{ replyId: reply.messageId, from: [...text].length, text: '' }], later(3000)))).to.deep.equal([reply.messageId]);
        stored = await find(reply.messageId);
        expect([stored?.text, stored?.progressAt?.getTime()]).to.deep.equal([text, later(3000).getTime()]);
      });

      it('a write sent again (its answer lost, though it was stored) replaces itself from where it starts: the text is never doubled', async () => {
        const { reply } = await begin();
        const advance = (from: number, text: string) => store.run((r) => r.replies.advance([{ replyId: reply.messageId, from, text }], later(1000)));
        await advance(0, 'Always 🎈 ');
        await advance(9, 'and ');
        await advance(9, 'and forever ');
        expect((await find(reply.messageId))?.text).to.equal('Always 🎈 and forever ');
        await advance(21, 'more.');
        expect((await find(reply.messageId))?.text).to.equal('Always 🎈 and forever more.');
      });

      it('advances many replies in one step, each by its own text; names those still in progress', async () => {
        const [one, two, done] = [await begin(), await begin(), await begin()];
        await store.run((r) => r.replies.finish(finished(done.reply, 'Final.', 'stop'), new Date()));
        const advanced = await store.run((r) =>
          r.replies.advance(
            [
              { replyId: one.reply.messageId, from: 0, text: 'First ' },
              { replyId: done.reply.messageId, from: 0, text: ' more' },
              { replyId: two.reply.messageId, from: 0, text: 'Second ✓' },
              { replyId: uid('nothing'), from: 0, text: 'text' },
            ],
            later(1000),
          ),
        );
        expect([...advanced].sort()).to.deep.equal([one.reply.messageId, two.reply.messageId].sort());
        expect([(await find(one.reply.messageId))?.text, (await find(two.reply.messageId))?.text, (await find(done.reply.messageId))?.text]).to.deep.equal(['First ', 'Second ✓', 'Final.']);
        expect((await find(two.reply.messageId))?.progressAt?.getTime()).to.equal(later(1000).getTime());
        expect(await store.run((r) => r.replies.advance([], later(2000)))).to.deep.equal([]);
      });

      it('changes nothing once the reply is finished, or when there is none (not named)', async () => {
        const { reply } = await begin();
        await store.run((r) => r.replies.finish(finished(reply, 'Final.', 'stop'), new Date()));
        expect(await store.run((r) => r.replies.advance([{ replyId: reply.messageId, from: 0, text: ' more' }], new Date()))).to.deep.equal([]);
        expect((await find(reply.messageId))?.text).to.equal('Final.');
        expect(await store.run((r) => r.replies.advance([{ replyId: uid('nothing'), from: 0, text: 'text' }], new Date()))).to.deep.equal([]);
      });
    });

    describe('finish', () => {
      it('stores the whole text and metadata as completed, and returns it', async () => {
        const { reply } = await begin();
        await store.run((r) => r.replies.advance([{ replyId: reply.messageId, from: 0, text: 'Partly' }], new Date()));
        const whole = finished(reply, 'Partly written, then whole.', 'stop');
        const stored = await store.run((r) => r.replies.finish(whole, new Date()));
        expect(stored?.toProps()).to.deep.equal({ ...whole.toProps(), status: 'completed', progressAt: null });
        expect((await find(reply.messageId))?.toProps()).to.deep.equal(stored?.toProps());
      });

      it('removes a reply with no text (null)', async () => {
        const { reply, userMessage } = await begin();
        expect(await store.run((r) => r.replies.finish(finished(reply, '', 'cancelled'), new Date()))).to.equal(null);
        expect(await find(reply.messageId)).to.equal(null);
        expect(await find(userMessage.messageId)).to.not.equal(null);
      });

      it('returns, unchanged, what someone else finished first; null for a reply that is gone', async () => {
        const { reply } = await begin();
        const first = await store.run((r) => r.replies.finish(finished(reply, 'Stopped here', 'cancelled'), new Date()));
        const second = await store.run((r) => r.replies.finish(finished(reply, 'Stopped here, and more', 'stop'), new Date()));
        expect(second?.toProps()).to.deep.equal(first?.toProps());
        expect(second?.finishReason).to.equal('cancelled');
        expect(await store.run((r) => r.replies.finish(finished(aReply(aMessage(aConversation())), 'x', 'stop'), new Date()))).to.equal(null);
      });
    });

    describe('findInProgress', () => {
      it("finds a conversation's reply in progress, and nothing once it is finished", async () => {
        const conversation = aConversation();
        await exchange(conversation, 'done already');
        const { reply } = await begin({ conversation });
        expect((await store.run((r) => r.replies.findInProgress(conversation.conversationId)))?.messageId).to.equal(reply.messageId);
        await store.run((r) => r.replies.finish(finished(reply, 'Done.', 'stop'), new Date()));
        expect(await store.run((r) => r.replies.findInProgress(conversation.conversationId))).to.equal(null);
        expect(await store.run((r) => r.replies.findInProgress(uid('nothing')))).to.equal(null);
      });
    });

    describe('interruptStale', () => {
      it('finishes as interrupted the replies not advanced since `before`, removes the empty ones, leaves the rest', async () => {
        const stale = await begin();
        await store.run((r) => r.replies.advance([{ replyId: stale.reply.messageId, from: 0, text: 'Said before dying' }], longBefore(1000)));
        const empty = await begin();
        await store.run((r) => r.replies.advance([{ replyId: empty.reply.messageId, from: 0, text: '' }], longBefore(1000)));
        const alive = await begin();
        await store.run((r) => r.replies.advance([{ replyId: alive.reply.messageId, from: 0, text: 'Still going' }], longBefore(9000)));

        expect(await store.run((r) => r.replies.interruptStale(longBefore(5000), new Date()))).to.equal(2);
        const interrupted = await find(stale.reply.messageId);
        expect([interrupted?.status, interrupted?.text, interrupted?.progressAt]).to.deep.equal(['completed', 'Said before dying', null]);
        expect([interrupted?.metadata, interrupted?.finishReason]).to.deep.equal([{ model: 'm' }, 'interrupted']);
        expect(await find(empty.reply.messageId)).to.equal(null);
        expect((await find(alive.reply.messageId))?.status).to.equal('in_progress');
        expect(await store.run((r) => r.replies.interruptStale(longBefore(5000), new Date()))).to.equal(0);
      });

      it('an interrupted reply takes a longer text that starts with its own (what its streams were sent), and nothing else', async () => {
        const stale = await begin();
        await store.run((r) => r.replies.advance([{ replyId: stale.reply.messageId, from: 0, text: 'Said 🎈 before' }], longBefore(1000)));
        await store.run((r) => r.replies.interruptStale(longBefore(5000), new Date()));
        const extend = (replyId: string, text: string) => store.run((r) => r.replies.extendInterrupted(replyId, text));
        expect((await extend(stale.reply.messageId, 'Said 🎈 nothing'))?.text, 'another text').to.equal('Said 🎈 before');
        expect((await extend(stale.reply.messageId, 'Said 🎈'))?.text, 'a shorter one').to.equal('Said 🎈 before');
        expect(await extend(stale.reply.messageId, 'Said 🎈 before dying')).to.deep.include({ text: 'Said 🎈 before dying', status: 'completed', finishReason: 'interrupted' });
        expect((await find(stale.reply.messageId))?.text).to.equal('Said 🎈 before dying');
        expect((await extend(stale.reply.messageId, 'Said 🎈 before'))?.text, 'never cut back').to.equal('Said 🎈 before dying');

        const answered = await begin();
        await store.run((r) => r.replies.finish(finished(answered.reply, 'Final.', 'stop'), new Date()));
        expect((await extend(answered.reply.messageId, 'Final. And more'))?.text, 'a reply that finished by itself').to.equal('Final.');
        expect(await extend(uid('none'), 'text')).to.equal(null);
      });
    });
  });
}

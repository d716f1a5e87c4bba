import { expect } from 'chai';
import type { ChatModel } from '../../src/application/ports/chat-model.js';
import { ReplyFeed, type FeedEvent } from '../../src/application/replies/reply-feed.js';
import { ReplyJobs } from '../../src/application/replies/reply-jobs.js';
import { BatchedStoredReplies } from '../../src/adapters/persistence/batched-stored-replies.js';
import { ReadsRecordingUnitOfWork } from '../support/recording-unit-of-work.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { chatApplication } from '../support/chat-application.js';
import { InMemoryUnitOfWork } from '../../src/adapters/persistence/memory/in-memory-unit-of-work.js';
import { openReply } from '../../src/domain/reply.js';
import { aConversation, aMessage } from '../support/builders.js';
import { uid } from '../support/ids.js';

/** 12 pieces 100 ms apart: longer than the followers' poll (1 s). */
const paced: ChatModel = {
  name: 'paced',
  complete: () => Promise.reject(new Error('not used')),
  async *stream() {
    for (let i = 0; i < 12; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      yield { type: 'delta', text: `p${i} ` };
    }
    yield { type: 'finish', finishReason: 'stop', model: 'paced', usage: null };
  },
};
const whole = Array.from({ length: 12 }, (_, i) => `p${i} `).join('');

describe('ReplyFeed: followers of replies produced on another instance', () => {
  it('poll the store together: one read for all of them at each tick, not one each; every follower gets the whole reply', async () => {
    const unitOfWork = new ReadsRecordingUnitOfWork();
    const producer = chatApplication(paced, { unitOfWork });
    // The second instance: its own jobs and feed over the same store and news.
    const settings = { writeIntervalMs: 20, staleMs: 30_000 };
    const followerFeed = new ReplyFeed(new ReplyJobs(unitOfWork, unitOfWork.notifications, new SystemClock(), settings), new BatchedStoredReplies(unitOfWork), unitOfWork.notifications);
    const followers = 20;
    const streams = await Promise.all(Array.from({ length: followers }, (_, n) => producer.stream.execute({ userId: `u${n}`, conversationId: `c${n}`, text: 'hi' })));
    const texts = await Promise.all(
      streams.map(async (stream) => {
        let text = '';
        for await (const event of followerFeed.watch(producer.jobs.local(stream.messageId)!.reply, 0, new AbortController().signal)) {
          if (event.type === 'text') text += event.text;
        }
        return text;
      }),
    );
    expect(texts).to.deep.equal(Array.from({ length: followers }, () => whole));
    // Each follower reads at least twice (a poll, its end): apart, that would be 40 reads.
    const sizes = unitOfWork.reads.map((ids) => ids.length);
    expect(Math.max(...sizes), `reads of ${JSON.stringify(sizes)} replies`).to.be.at.least(followers / 2);
    expect(unitOfWork.reads.length).to.be.below(followers * 1.5);
  });

  it("a listener that read the reply in progress just before its job here ended gets the end at once, from the store, not at the next poll", async () => {
    const quick: ChatModel = { ...paced, async *stream() { yield { type: 'delta', text: 'done soon' }; yield { type: 'finish', finishReason: 'stop', model: 'quick', usage: null }; } };
    const app = chatApplication(quick);
    const stream = await app.stream.execute({ userId: 'u', conversationId: 'c', text: 'hi' });
    const job = app.jobs.local(stream.messageId)!;
    const snapshot = job.reply; // as a store read just before the end shows it: in progress
    await job.done;
    expect(app.jobs.local(stream.messageId), 'the job has left').to.equal(undefined);
    const started = Date.now();
    const events = [];
    for await (const event of app.feed.watch(snapshot, 0, new AbortController().signal)) events.push(event);
    expect(events.at(-1)).to.deep.include({ type: 'end', finishReason: 'stop' });
    // The poll comes a second after the watch began: the end came from a read at once.
    expect(Date.now() - started).to.be.below(900);
  });
});

describe('ReplyFeed: a follower sent more than its producer stored, when the producer dies', () => {
  it('keeps what it was sent: the interrupted reply takes that text, and the follower ends with it (its done no shorter than its deltas)', async () => {
    const unitOfWork = new InMemoryUnitOfWork();
    const conversation = aConversation();
    const question = aMessage(conversation, { text: 'Tell me a story' });
    const reply = openReply(question, uid('reply'), 'm', new Date());
    await unitOfWork.run((r) => r.replies.begin({ conversation, userMessage: question, reply, historyLimit: 10 }));
    // Its producer (on another instance) stored a first piece, published more, and died.
    await unitOfWork.run((r) => r.replies.advance([{ replyId: reply.messageId, from: 0, text: 'Once upon ' }], new Date()));
    const settings = { writeIntervalMs: 20, staleMs: 30_000 };
    const feed = new ReplyFeed(new ReplyJobs(unitOfWork, unitOfWork.notifications, new SystemClock(), settings), new BatchedStoredReplies(unitOfWork), unitOfWork.notifications);
    const stored = (await unitOfWork.run((r) => r.messages.findById(reply.messageId)))!;
    const events: FeedEvent[] = [];
    const following = (async () => {
      for await (const event of feed.watch(stored, 0, new AbortController().signal)) events.push(event);
    })();
    await until(() => events.length === 1);
    unitOfWork.notifications.publish({ type: 'piece', replyId: reply.messageId, from: 10, text: 'a time 🐉 there' });
    await until(() => events.length === 2);
    await unitOfWork.run((r) => r.replies.interruptStale(new Date(Date.now() + 1000), new Date()));
    unitOfWork.notifications.publish({ type: 'end', replyId: reply.messageId });
    await following;
    const sent = events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
    expect(sent).to.equal('Once upon a time 🐉 there');
    const end = events.at(-1)!;
    expect(end).to.deep.include({ type: 'end', finishReason: 'interrupted', position: [...sent].length });
    expect(end.type === 'end' && end.message?.text).to.equal(sent);
    expect((await unitOfWork.run((r) => r.messages.findById(reply.messageId)))?.text).to.equal(sent);
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let turns = 0; !condition(); turns++) {
    if (turns > 500) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

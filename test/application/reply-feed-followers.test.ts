import { expect } from 'chai';
import type { ChatModel } from '../../src/application/ports/chat-model.js';
import { ReplyFeed } from '../../src/application/replies/reply-feed.js';
import { ReplyJobs } from '../../src/application/replies/reply-jobs.js';
import { BatchedStoredReplies } from '../../src/adapters/persistence/batched-stored-replies.js';
import { ReadsRecordingUnitOfWork } from '../support/recording-unit-of-work.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { chatApplication } from '../support/chat-application.js';

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

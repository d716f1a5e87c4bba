import { expect } from 'chai';
import type { ChatChunk } from '../../src/application/ports/chat-model.js';
import type { ReplyNews, ReplyNotifications } from '../../src/application/ports/reply-notifications.js';
import { FOLLOW_LEASE_MS } from '../../src/application/replies/reply-broadcast.js';
import { ReplyFeed, type FeedEvent } from '../../src/application/replies/reply-feed.js';
import { ReplyJobs } from '../../src/application/replies/reply-jobs.js';
import { BatchedStoredReplies } from '../../src/adapters/persistence/batched-stored-replies.js';
import { InMemoryUnitOfWork } from '../../src/adapters/persistence/memory/in-memory-unit-of-work.js';
import { Message } from '../../src/domain/message.js';
import { aConversation, aMessage } from '../support/builders.js';
import { uid } from '../support/ids.js';

/** The process's news, every piece published counted; the next `drop` pieces are lost on the way. */
class CountingNotifications implements ReplyNotifications {
  pieces: Extract<ReplyNews, { type: 'piece' }>[] = [];
  drop = 0;
  constructor(private readonly inner: ReplyNotifications) {}
  watch = (replyId: string, onNews: (news: ReplyNews) => void) => this.inner.watch(replyId, onNews);
  follow = (replyId: string, from: number) => this.inner.follow(replyId, from);
  onFollow = (onFollow: (replyId: string, from: number) => void) => this.inner.onFollow(onFollow);
  requestStop = (replyId: string) => this.inner.requestStop(replyId);
  onStopRequest = (onStop: (replyId: string) => void) => this.inner.onStopRequest(onStop);
  publish(news: Exclude<ReplyNews, { type: 'look' }>): void {
    if (news.type === 'piece') {
      this.pieces.push(news);
      if (this.drop > 0) return void this.drop--;
    }
    this.inner.publish(news);
  }
}

/** A model whose pieces the test gives one at a time. */
function scripted() {
  const queue: ChatChunk[] = [];
  let wake: (() => void) | undefined;
  const push = (chunk: ChatChunk) => {
    queue.push(chunk);
    wake?.();
  };
  return {
    say: (text: string) => push({ type: 'delta', text }),
    finish: () => push({ type: 'finish', finishReason: 'stop', model: 'scripted-1', usage: null }),
    async *generate(): AsyncIterable<ChatChunk> {
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const chunk = queue.shift()!;
        yield chunk;
        if (chunk.type === 'finish') return;
      }
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Two instances over one store and one bus of news: `producer` runs the reply, `follower` reads it. */
async function twoInstances(now: () => number = Date.now) {
  const unitOfWork = new InMemoryUnitOfWork();
  const news = new CountingNotifications(unitOfWork.notifications);
  const clock = { now: () => new Date(now()) };
  // Writes to the store are rare: what the follower reads comes from the producer's pieces.
  const settings = { writeIntervalMs: 60_000, staleMs: 600_000 };
  const producer = new ReplyJobs(unitOfWork, news, clock, settings);
  const followerJobs = new ReplyJobs(unitOfWork, news, clock, settings);
  const follower = new ReplyFeed(followerJobs, new BatchedStoredReplies(unitOfWork), news);
  const conversation = aConversation();
  const question = aMessage(conversation, { text: 'a question' });
  const reply = Message.create({
    messageId: uid('reply'), conversationId: conversation.conversationId, userId: conversation.userId, role: 'assistant', text: '',
    createdAt: new Date(), metadata: { model: 'scripted-1' }, replyTo: question.messageId, parentId: question.messageId, status: 'in_progress', progressAt: new Date(),
  });
  await unitOfWork.run((r) => r.replies.begin({ conversation, userMessage: question, reply, historyLimit: 0 }));
  const model = scripted();
  const job = producer.start(reply, () => model.generate());
  /** Follows the reply from `from`, collecting what comes. */
  const follow = (from = 0) => {
    const abort = new AbortController();
    const events: FeedEvent[] = [];
    const done = (async () => {
      for await (const event of follower.watch(reply, from, abort.signal)) events.push(event);
    })();
    const text = () => events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
    return { events, text, done, stop: () => abort.abort() };
  };
  const shutdown = () => Promise.all([producer.shutdown(new Date()), followerJobs.shutdown(new Date())]);
  return { news, model, job, follow, shutdown };
}

async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 3000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('ReplyBroadcast: a reply pushed to followers on other instances', () => {
  it('publishes nothing while nobody follows; a follower gets every piece in order, then the end, nothing twice', async () => {
    const { news, model, follow, shutdown } = await twoInstances();
    model.say('Before anyone follows. ');
    await settle();
    expect(news.pieces).to.deep.equal([]);
    const reader = follow();
    await until(() => reader.text() === 'Before anyone follows. ');
    for (const piece of ['One, ', 'two, ', 'three 👋.']) {
      model.say(piece);
      await until(() => reader.text().endsWith(piece));
    }
    model.finish();
    await reader.done;
    expect(reader.text()).to.equal('Before anyone follows. One, two, three 👋.');
    const end = reader.events.at(-1)!;
    expect(end.type).to.equal('end');
    expect(end.type === 'end' && end.message?.text).to.equal('Before anyone follows. One, two, three 👋.');
    // Positions count code points and only grow.
    const positions = reader.events.map((e) => e.position);
    expect(positions).to.deep.equal([...positions].sort((a, b) => a - b));
    expect(end.position).to.equal([...'Before anyone follows. One, two, three 👋.'].length);
    await shutdown();
  });

  it('a follower that joins late starts where it stands: nothing before its position is published', async () => {
    const { news, model, follow, shutdown } = await twoInstances();
    model.say('0123456789');
    await settle();
    const reader = follow(6);
    await until(() => reader.text() === '6789');
    expect(news.pieces.map((p) => [p.from, p.text])).to.deep.equal([[6, '6789']]);
    model.finish();
    await reader.done;
    await shutdown();
  });

  it('a lost piece is noticed at the next one and asked for again: the text arrives whole, nothing repeated', async () => {
    const { news, model, follow, shutdown } = await twoInstances();
    const reader = follow();
    model.say('Kept. ');
    await until(() => reader.text() === 'Kept. ');
    news.drop = 1;
    model.say('Lost on the way. ');
    await settle();
    expect(reader.text()).to.equal('Kept. ');
    model.say('After the gap.');
    await until(() => reader.text() === 'Kept. Lost on the way. After the gap.');
    model.finish();
    await reader.done;
    expect(reader.text()).to.equal('Kept. Lost on the way. After the gap.');
    await shutdown();
  });

  it('stops publishing once no follow has renewed the lease', async () => {
    let now = Date.now();
    const { news, model, follow, job, shutdown } = await twoInstances(() => now);
    const reader = follow();
    model.say('Followed. ');
    await until(() => reader.text() === 'Followed. ');
    reader.stop();
    await reader.done;
    now += FOLLOW_LEASE_MS + 1;
    const published = news.pieces.length;
    model.say('Nobody follows now.');
    await until(() => job.text.endsWith('now.'));
    await settle();
    expect(news.pieces.length).to.equal(published);
    model.finish();
    await job.done;
    await shutdown();
  });
});

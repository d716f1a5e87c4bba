import { expect } from 'chai';
import type { ChatModel } from '../../src/application/ports/chat-model.js';
import type { ReplyAdvance } from '../../src/application/ports/reply-repository.js';
import type { Repositories } from '../../src/application/ports/unit-of-work.js';
import { InMemoryUnitOfWork } from '../../src/adapters/persistence/memory/in-memory-unit-of-work.js';
import { DependencyUnavailableError } from '../../src/domain/errors.js';
import { chatApplication } from '../support/chat-application.js';

/** The in-memory store, recording each progress write (and failing the first `failures` of them, the database away). */
class RecordingUnitOfWork extends InMemoryUnitOfWork {
  failures = 0;
  /** Every call of `advance`, and whether it was stored. */
  readonly writes: { advances: ReplyAdvance[]; stored: boolean }[] = [];

  override run<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    return super.run((repositories) => {
      const replies = repositories.replies;
      const recording: Repositories['replies'] = Object.create(replies);
      recording.advance = (advances, at) => {
        const stored = this.failures-- <= 0;
        this.writes.push({ advances: [...advances], stored });
        return stored ? replies.advance(advances, at) : Promise.reject(new DependencyUnavailableError('the database is unavailable; try again shortly'));
      };
      return work({ ...repositories, replies: recording });
    });
  }

  /** What the stored progress writes gave `replyId`, in order. */
  storedText(replyId: string): string {
    return this.writes.filter((w) => w.stored).flatMap((w) => w.advances.filter((a) => a.replyId === replyId).map((a) => a.text)).join('');
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `pieces` pieces `gapMs` apart, after thinking for `thinkMs`. */
const pacedModel = (pieces: number, gapMs: number, thinkMs = 0): ChatModel => ({
  name: 'paced',
  complete: () => Promise.reject(new Error('not used')),
  async *stream() {
    await sleep(thinkMs);
    for (let i = 0; i < pieces; i++) {
      await sleep(gapMs);
      yield { type: 'delta', text: `p${i} ` };
    }
    yield { type: 'finish', finishReason: 'stop', model: 'paced', usage: null };
  },
});
const wholeText = (pieces: number) => Array.from({ length: pieces }, (_, i) => `p${i} `).join('');

describe('ReplyWrites: the progress of every reply of an instance, written together', () => {
  it('writes the replies streaming at once in shared statements, not one each, each reply its text in order', async () => {
    const unitOfWork = new RecordingUnitOfWork();
    const app = chatApplication(pacedModel(10, 10), { unitOfWork, replies: { writeIntervalMs: 50 } });
    const replies = 40;
    const streams = await Promise.all(Array.from({ length: replies }, (_, n) => app.stream.execute({ userId: `u${n}`, conversationId: `c${n}`, text: 'hi' })));
    const ends = await Promise.all(streams.map((stream) => app.jobs.local(stream.messageId)!.done));
    for (const end of ends) expect(end.message?.text).to.equal(wholeText(10));
    // One reply alone writes at least once; forty writing apart would make forty statements at least.
    expect(unitOfWork.writes.length).to.be.above(0).and.below(replies / 2);
    expect(Math.max(...unitOfWork.writes.map((w) => w.advances.length))).to.be.above(1);
    for (const write of unitOfWork.writes) expect(new Set(write.advances.map((a) => a.replyId)).size).to.equal(write.advances.length);
    for (const stream of streams) {
      const progress = unitOfWork.storedText(stream.messageId);
      expect(progress.length, 'progress written before the end').to.be.above(0);
      expect(wholeText(10).startsWith(progress), `${JSON.stringify(progress)} is the reply's beginning`).to.equal(true);
    }
  });

  it('leaves what a failed write held to the next one: nothing lost, nothing twice', async () => {
    const unitOfWork = new RecordingUnitOfWork();
    unitOfWork.failures = 2;
    const app = chatApplication(pacedModel(30, 5), { unitOfWork, replies: { writeIntervalMs: 20 } });
    const streams = await Promise.all(Array.from({ length: 3 }, (_, n) => app.stream.execute({ userId: `u${n}`, conversationId: `c${n}`, text: 'hi' })));
    await Promise.all(streams.map((stream) => app.jobs.local(stream.messageId)!.done));
    expect(unitOfWork.writes.filter((w) => !w.stored)).to.have.length(2);
    expect(unitOfWork.writes.filter((w) => w.stored)).to.not.have.length(0);
    for (const stream of streams) {
      const progress = unitOfWork.storedText(stream.messageId);
      expect(progress.startsWith('p0 p1 '), `${JSON.stringify(progress)} begins with the text the failed writes held`).to.equal(true);
      expect(wholeText(30).startsWith(progress)).to.equal(true);
    }
  });

  it('keeps a reply alive while the model thinks: a sign of life (no text) before the first piece', async () => {
    const unitOfWork = new RecordingUnitOfWork();
    const app = chatApplication(pacedModel(1, 0, 400), { unitOfWork, replies: { writeIntervalMs: 20, staleMs: 300 } });
    const stream = await app.stream.execute({ userId: 'u', conversationId: 'c', text: 'hi' });
    await app.jobs.local(stream.messageId)!.done;
    const signs = unitOfWork.writes.filter((w) => w.stored && w.advances.some((a) => a.replyId === stream.messageId && a.text === ''));
    expect(signs.length).to.be.above(0);
  });

  it('stops a reply that someone else finished meanwhile (as cancelled), at its next write', async () => {
    const unitOfWork = new RecordingUnitOfWork();
    const app = chatApplication(pacedModel(100, 5), { unitOfWork, replies: { writeIntervalMs: 20 } });
    const stream = await app.stream.execute({ userId: 'u', conversationId: 'c', text: 'hi' });
    await sleep(60);
    const reply = await unitOfWork.run((r) => r.messages.findById(stream.messageId));
    await unitOfWork.run((r) => r.replies.interruptStale(new Date(Date.now() + 60_000), new Date()));
    const end = await app.jobs.local(stream.messageId)!.done;
    expect(reply?.status).to.equal('in_progress');
    expect(end.finishReason).to.not.equal('stop');
    expect((await unitOfWork.run((r) => r.messages.findById(stream.messageId)))?.finishReason).to.equal('interrupted');
  });
});

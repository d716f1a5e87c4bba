import { expect } from 'chai';
import type { ChatModel } from '../../src/application/ports/chat-model.js';
import type { Repositories } from '../../src/application/ports/unit-of-work.js';
import { InMemoryUnitOfWork } from '../../src/adapters/persistence/memory/in-memory-unit-of-work.js';
import { DependencyUnavailableError } from '../../src/domain/errors.js';
import { chatApplication } from '../support/chat-application.js';

/** The in-memory store, whose database "goes away" for the next `finishFailures` ends of replies. */
class FlakyUnitOfWork extends InMemoryUnitOfWork {
  finishFailures = 0;
  finishCalls = 0;
  /** Progress writes fail while set (this instance cut off from the database). */
  advanceFailing = false;

  override run<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    return super.run((repositories) => {
      const replies = repositories.replies;
      const flaky: Repositories['replies'] = {
        begin: (start) => replies.begin(start),
        regenerate: (start) => replies.regenerate(start),
        inProgressOf: (userId) => replies.inProgressOf(userId),
        reopen: (reply) => replies.reopen(reply),
        advance: (advances, at) => (this.advanceFailing ? Promise.reject(new DependencyUnavailableError('the database is unavailable; try again shortly')) : replies.advance(advances, at)),
        findInProgress: (id) => replies.findInProgress(id),
        interruptStale: (before, at) => replies.interruptStale(before, at),
        extendInterrupted: (replyId, text) => replies.extendInterrupted(replyId, text),
        finish: (reply, at) => {
          this.finishCalls++;
          if (this.finishFailures-- > 0) return Promise.reject(new DependencyUnavailableError('the database is unavailable; try again shortly'));
          return replies.finish(reply, at);
        },
        finishAndName: (reply, at, name) => {
          this.finishCalls++;
          if (this.finishFailures-- > 0) return Promise.reject(new DependencyUnavailableError('the database is unavailable; try again shortly'));
          return replies.finishAndName(reply, at, name);
        },
      };
      return work({ ...repositories, replies: flaky });
    });
  }
}

const model: ChatModel = {
  name: 'scripted',
  complete: () => Promise.reject(new Error('not used')),
  async *stream() {
    yield { type: 'delta', text: 'A whole ' };
    yield { type: 'delta', text: 'answer.' };
    yield { type: 'finish', finishReason: 'stop', model: 'scripted-1', usage: null };
  },
};

describe('ReplyJob', () => {
  it('stores its end even when the database is away for a moment: the last write is tried again', async () => {
    const unitOfWork = new FlakyUnitOfWork();
    unitOfWork.finishFailures = 2;
    const app = chatApplication(model, { unitOfWork });
    const stream = await app.stream.execute({ userId: 'u', conversationId: 'c', text: 'hi' });
    const end = await app.jobs.local(stream.messageId)!.done;
    expect(end.failure).to.equal(undefined);
    expect(end.finishReason).to.equal('stop');
    expect(end.message?.text).to.equal('A whole answer.');
    expect(unitOfWork.finishCalls).to.equal(3);
    const stored = await unitOfWork.run((r) => r.messages.findById(stream.messageId));
    expect([stored?.status, stored?.text]).to.deep.equal(['completed', 'A whole answer.']);
  });

  it('cut off from the database past the stale bound, while another instance ended its reply as interrupted: its end keeps the whole text its streams were sent', async () => {
    const unitOfWork = new FlakyUnitOfWork();
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const held: ChatModel = {
      ...model,
      async *stream() {
        yield { type: 'delta', text: 'A whole ' };
        await released;
        yield { type: 'delta', text: 'answer, 🎈 long.' };
        yield { type: 'finish', finishReason: 'stop', model: 'scripted-1', usage: null };
      },
    };
    const app = chatApplication(held, { unitOfWork });
    const stream = await app.stream.execute({ userId: 'u', conversationId: 'c', text: 'hi' });
    const stored = () => unitOfWork.run((r) => r.messages.findById(stream.messageId));
    for (let turns = 0; (await stored())?.text !== 'A whole ' && turns < 500; turns++) await new Promise((resolve) => setTimeout(resolve, 2));
    unitOfWork.advanceFailing = true;
    // Another instance sweeps the reply up as stale, with the text it last stored.
    await unitOfWork.run((r) => r.replies.interruptStale(new Date(Date.now() + 60_000), new Date()));
    release();
    const end = await app.jobs.local(stream.messageId)!.done;
    expect([end.finishReason, end.message?.text]).to.deep.equal(['interrupted', 'A whole answer, 🎈 long.']);
    expect([(await stored())?.finishReason, (await stored())?.text]).to.deep.equal(['interrupted', 'A whole answer, 🎈 long.']);
  });

  it('gives up after a few tries when the database stays away: the reply ends with that failure', async () => {
    const unitOfWork = new FlakyUnitOfWork();
    unitOfWork.finishFailures = Infinity;
    const app = chatApplication(model, { unitOfWork });
    const stream = await app.stream.execute({ userId: 'u', conversationId: 'c', text: 'hi' });
    const end = await app.jobs.local(stream.messageId)!.done;
    expect(end.failure).to.be.instanceOf(DependencyUnavailableError);
    expect(end.message).to.equal(null);
    expect(unitOfWork.finishCalls).to.be.within(2, 10);
  });
});

/** A model whose answer waits for `open()` (its first piece, or its whole reply), counting the title requests it gets (a system prompt of their own). */
function gatedModel(): { model: ChatModel; titleCalls: () => number; open: () => void } {
  let titles = 0;
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  const model: ChatModel = {
    name: 'gated',
    async complete(request) {
      if (request.systemPrompt !== undefined) {
        titles++;
        return { text: 'Rain tomorrow', finishReason: 'stop', model: 'gated-1', usage: null };
      }
      await opened;
      return { text: 'Bring an umbrella, just in case of rain tomorrow.', finishReason: 'stop', model: 'gated-1', usage: null };
    },
    async *stream() {
      await opened;
      yield { type: 'delta', text: 'Bring an umbrella, ' };
      yield { type: 'delta', text: 'just in case of rain tomorrow.' };
      yield { type: 'finish', finishReason: 'stop', model: 'gated-1', usage: null };
    },
  };
  return { model, titleCalls: () => titles, open };
}

const turnOver = () => new Promise((resolve) => setImmediate(resolve));

describe('Naming a conversation with the model (TITLE_MODE=model)', () => {
  it('a streamed reply on a quiet instance asks for its title at once, beside the reply', async () => {
    const { model, titleCalls, open } = gatedModel();
    const app = chatApplication(model, { titles: 'model' });
    const stream = await app.stream.execute({ userId: 'u', text: 'Will it rain tomorrow?' });
    expect(titleCalls(), 'before the first piece').to.equal(1);
    open();
    await app.jobs.local(stream.messageId)!.done;
    expect(titleCalls()).to.equal(1);
  });

  it("on a busy instance (titlesAtOnceUnder replies in progress), a streamed reply asks for its title once its first piece is out, not before: the extra calls do not hold up everyone's first words", async () => {
    const { model, titleCalls, open } = gatedModel();
    const app = chatApplication(model, { titles: 'model', replies: { titlesAtOnceUnder: 1 } });
    const other = await app.stream.execute({ userId: 'v', text: 'Is it sunny today?' });
    expect(titleCalls(), 'the first reply: the instance was quiet').to.equal(1);
    const stream = await app.stream.execute({ userId: 'u', text: 'Will it rain tomorrow?' });
    for (let i = 0; i < 5; i++) await turnOver();
    expect(titleCalls(), 'before the first piece').to.equal(1);
    open();
    const job = app.jobs.local(stream.messageId)!;
    const end = await job.done;
    await app.jobs.local(other.messageId)?.done;
    expect(titleCalls(), 'after it, once').to.equal(2);
    expect(end.message?.text).to.equal('Bring an umbrella, just in case of rain tomorrow.');
    expect(job.title, "the title its streams announce: the model's, there by the reply's end").to.deep.include({ title: 'Rain tomorrow', source: 'generated' });
    const named = await app.unitOfWork.run((r) => r.conversations.summary(stream.conversationId));
    expect([named?.title, named?.titleSource]).to.deep.equal(['Rain tomorrow', 'generated']);
  });

  /** A model whose streamed answer to each question waits for that question's own gate; title requests are counted. */
  function modelGatedPerQuestion(): { model: ChatModel; titleCalls: () => number; open: (question: string) => void } {
    let titles = 0;
    const gates = new Map<string, { opened: Promise<void>; open: () => void }>();
    const gate = (question: string) => {
      let entry = gates.get(question);
      if (!entry) {
        let open = () => {};
        const opened = new Promise<void>((resolve) => (open = resolve));
        gates.set(question, (entry = { opened, open }));
      }
      return entry;
    };
    const model: ChatModel = {
      name: 'gated',
      async complete(request) {
        titles++;
        return { text: `About ${request.text}`, finishReason: 'stop', model: 'gated-1', usage: null };
      },
      async *stream(request, signal) {
        // A stop ends the wait (ReplyJob aborts the call).
        if (request.text === 'fails') throw new Error('the model is down');
        const stopped = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve()));
        await Promise.race([gate(request.text).opened, stopped]);
        if (signal?.aborted) return;
        yield { type: 'delta', text: 'First words, ' };
        await Promise.race([gate(`${request.text} (rest)`).opened, stopped]);
        if (signal?.aborted) return;
        yield { type: 'delta', text: 'then the rest.' };
        yield { type: 'finish', finishReason: 'stop', model: 'gated-1', usage: null };
      },
    };
    return { model, titleCalls: () => titles, open: (question) => gate(question).open() };
  }

  it("on a busy instance, a title waits while another reply there still waits for its first piece, and is asked once that piece is out", async () => {
    const { model, titleCalls, open } = modelGatedPerQuestion();
    const app = chatApplication(model, { titles: 'model', replies: { titlesAtOnceUnder: 0, titlesWaitMs: 60_000, titlesQuietMs: 0 } });
    const first = await app.stream.execute({ userId: 'u', text: 'one' });
    const second = await app.stream.execute({ userId: 'v', text: 'two' });
    open('one');
    for (let i = 0; i < 5; i++) await turnOver();
    expect(titleCalls(), "the first reply's first piece is out, the second's is not").to.equal(0);
    open('two');
    for (let i = 0; i < 5; i++) await turnOver();
    expect(titleCalls(), 'both first pieces out: both titles asked').to.equal(2);
    open('one (rest)');
    open('two (rest)');
    for (const reply of [first, second]) {
      const job = app.jobs.local(reply.messageId)!;
      await job.done;
      expect(job.title).to.deep.include({ source: 'generated' });
    }
    expect(titleCalls(), 'each title asked once').to.equal(2);
  });

  it('on a busy instance, titles wait while new replies keep starting (a burst), and are asked once none has started for titlesQuietMs', async () => {
    const { model, titleCalls, open } = modelGatedPerQuestion();
    const app = chatApplication(model, { titles: 'model', replies: { titlesAtOnceUnder: 0, titlesWaitMs: 60_000, titlesQuietMs: 150 } });
    const first = await app.stream.execute({ userId: 'u', text: 'one' });
    open('one');
    for (let i = 0; i < 5; i++) await turnOver();
    expect(titleCalls(), 'the first piece is out, but a reply started a moment ago').to.equal(0);
    const second = await app.stream.execute({ userId: 'v', text: 'two' });
    open('two');
    for (let i = 0; i < 5; i++) await turnOver();
    expect(titleCalls(), 'another reply started: the burst goes on').to.equal(0);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(titleCalls(), 'no reply started for the quiet time: both titles asked').to.equal(2);
    open('one (rest)');
    open('two (rest)');
    for (const reply of [first, second]) await app.jobs.local(reply.messageId)?.done;
    expect(titleCalls(), 'each title asked once').to.equal(2);
  });

  it('a waiting title is asked after titlesWaitMs even while another reply never gets its first piece', async () => {
    const { model, titleCalls, open } = modelGatedPerQuestion();
    const app = chatApplication(model, { titles: 'model', replies: { titlesAtOnceUnder: 0, titlesWaitMs: 30 } });
    const stuck = await app.stream.execute({ userId: 'u', text: 'stuck' });
    const first = await app.stream.execute({ userId: 'v', text: 'one' });
    open('one');
    for (let i = 0; i < 5; i++) await turnOver();
    expect(titleCalls(), 'still waiting').to.equal(0);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(titleCalls(), 'asked once the wait is over').to.equal(1);
    open('one (rest)');
    await app.jobs.local(first.messageId)!.done;
    app.jobs.local(stuck.messageId)!.stop('cancelled');
    await app.jobs.local(stuck.messageId)!.done;
  });

  it('a reply that ends while its title still waits asks for it at its end, and the conversation gets the model title', async () => {
    const { model, titleCalls, open } = modelGatedPerQuestion();
    const app = chatApplication(model, { titles: 'model', replies: { titlesAtOnceUnder: 0, titlesWaitMs: 60_000 } });
    const stuck = await app.stream.execute({ userId: 'u', text: 'stuck' });
    const quick = await app.stream.execute({ userId: 'v', text: 'quick' });
    open('quick');
    open('quick (rest)');
    await app.jobs.local(quick.messageId)!.done;
    expect(titleCalls(), 'asked at the end').to.equal(1);
    for (let i = 0; i < 10; i++) await turnOver();
    const named = await app.unitOfWork.run((r) => r.conversations.summary(quick.conversationId));
    expect(named?.titleSource).to.equal('generated');
    app.jobs.local(stuck.messageId)!.stop('cancelled');
    await app.jobs.local(stuck.messageId)!.done;
  });

  it('on a busy instance, a reply that fails before its first piece asks for no title', async () => {
    const { model, titleCalls } = modelGatedPerQuestion();
    const app = chatApplication(model, { titles: 'model', replies: { titlesAtOnceUnder: 0, titlesWaitMs: 10 } });
    const failed = await app.stream.execute({ userId: 'u', text: 'fails' });
    const end = await app.jobs.local(failed.messageId)!.done;
    expect(end.failure).to.not.equal(undefined);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(titleCalls()).to.equal(0);
  });

  it('a reply made whole (POST /v1/chat) asks for its title at once, beside the reply, busy or not', async () => {
    const { model, titleCalls, open } = gatedModel();
    const app = chatApplication(model, { titles: 'model', replies: { titlesAtOnceUnder: 0 } });
    const sent = app.send.execute({ userId: 'u', text: 'Will it rain tomorrow?' });
    for (let i = 0; i < 5; i++) await turnOver();
    expect(titleCalls(), 'while the reply is being made').to.equal(1);
    open();
    const exchange = await sent;
    expect(titleCalls()).to.equal(1);
    const named = await app.unitOfWork.run((r) => r.conversations.summary(exchange.conversationId));
    expect([named?.title, named?.titleSource]).to.deep.equal(['Rain tomorrow', 'generated']);
  });
});

describe('ReplyFeed over a job', () => {
  /** 200 pieces, a few milliseconds apart, some of two UTF-16 units: batch writes (every 20 ms here) fall between them. */
  const pieces = Array.from({ length: 200 }, (_, i) => (i % 7 === 0 ? `😀${i} ` : `w${i} `));
  const paced: ChatModel = {
    name: 'paced',
    complete: () => Promise.reject(new Error('not used')),
    async *stream() {
      for (const [i, text] of pieces.entries()) {
        if (i % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 3));
        yield { type: 'delta', text };
      }
      yield { type: 'finish', finishReason: 'stop', model: 'paced', usage: null };
    },
  };

  it('gives every listener exactly the text after its position: from the start, from the middle, and one that reads slowly', async () => {
    const app = chatApplication(paced);
    const stream = await app.stream.execute({ userId: 'u', conversationId: 'c', text: 'hi' });
    const whole = pieces.join('');
    const read = async (from: number, pause: number) => {
      let text = '';
      let position = from;
      for await (const event of stream.events(from, new AbortController().signal)) {
        if (event.type !== 'text') continue;
        text += event.text;
        position = event.position;
        if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
      }
      return { text, position };
    };
    const fast = read(0, 0);
    const slow = read(0, 7);
    await new Promise((resolve) => setTimeout(resolve, 15));
    const middle = Math.floor(app.jobs.local(stream.messageId)!.length / 2);
    const late = read(middle, 0);
    const length = [...whole].length;
    expect(await fast).to.deep.equal({ text: whole, position: length });
    expect(await slow).to.deep.equal({ text: whole, position: length });
    expect(await late).to.deep.equal({ text: [...whole].slice(middle).join(''), position: length });
  });
});

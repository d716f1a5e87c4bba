import { expect } from 'chai';
import type { ChatModel, ChatReply, ChatRequest } from '../../src/application/ports/chat-model.js';
import { SaveMessage } from '../../src/application/use-cases/save-message.js';
import { InMemoryUnitOfWork } from '../../src/adapters/persistence/memory/in-memory-unit-of-work.js';
import { ChatModelFailedError } from '../../src/domain/errors.js';
import { chatApplication } from '../support/chat-application.js';

class FixedClock {
  constructor(public time = new Date('2026-11-22T10:00:00.000Z')) {}
  now() {
    return new Date(this.time);
  }
}

class CountingIds {
  private n = 0;
  newId() {
    return `id-${String(++this.n).padStart(4, '0')}`;
  }
  derivedId(name: string) {
    return `derived-${name}`;
  }
}

class RecordingModel implements ChatModel {
  requests: ChatRequest[] = [];
  signals: (AbortSignal | undefined)[] = [];
  immediate?: boolean;
  constructor(private readonly answer: (request: ChatRequest) => Partial<ChatReply> = () => ({})) {}
  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatReply> {
    this.requests.push(request);
    this.signals.push(signal);
    return { text: 'ok', finishReason: 'stop', model: 'recording', usage: null, ...this.answer(request) };
  }
  async *stream(): AsyncIterable<never> {}
}

function setUp(settings = { maxTextLength: 1000, historyMessages: 3, historyChars: 1000 }, model = new RecordingModel()) {
  const unitOfWork = new InMemoryUnitOfWork();
  const clock = new FixedClock();
  const ids = new CountingIds();
  const { send } = chatApplication(model, { unitOfWork, clock, ids, chat: settings });
  return { unitOfWork, clock, model, send, save: new SaveMessage(unitOfWork, clock, ids) };
}

describe('SendChatMessage', () => {
  it('gives the model a signal to stop by, unless it answers at once (immediate): then none is made', async () => {
    const { send, model } = setUp();
    await send.execute({ userId: 'u', conversationId: 'c', text: 'one' });
    model.immediate = true;
    await send.execute({ userId: 'u', conversationId: 'c', text: 'two' });
    expect(model.signals[0]).to.be.instanceOf(AbortSignal);
    expect(model.signals[1]).to.equal(undefined);
    expect(model.requests.map((r) => r.text)).to.deep.equal(['one', 'two']);
  });

  it('shows the model the newest turns within the message budget, oldest first', async () => {
    const { send, save, model } = setUp();
    for (const text of ['one', 'two', 'three', 'four']) {
      await save.execute({ userId: 'u', conversationId: 'c', role: 'user', text });
    }
    await send.execute({ userId: 'u', conversationId: 'c', text: 'now' });
    expect(model.requests[0]!.history.map((t) => t.text)).to.deep.equal(['two', 'three', 'four']);
    expect(model.requests[0]!.text).to.equal('now');
  });

  it('drops the oldest turns first to stay within the character budget', async () => {
    const { send, save, model } = setUp({ maxTextLength: 1000, historyMessages: 10, historyChars: 10 });
    for (const text of ['aaaaaaaa', 'bbbb', 'cccc']) await save.execute({ userId: 'u', conversationId: 'c', role: 'user', text });
    await send.execute({ userId: 'u', conversationId: 'c', text: 'now' });
    expect(model.requests[0]!.history.map((t) => t.text)).to.deep.equal(['bbbb', 'cccc']);
  });

  it('counts the character budget in code points: an emoji is one, though two UTF-16 units', async () => {
    const { send, save, model } = setUp({ maxTextLength: 1000, historyMessages: 10, historyChars: 10 });
    // 4 + 3 + 3 code points (8 + 3 + 6 units): all three fit the 10, though their 17 units do not.
    for (const text of ['😀😀😀😀', 'bbb', '😀😀😀']) await save.execute({ userId: 'u', conversationId: 'c', role: 'user', text });
    await send.execute({ userId: 'u', conversationId: 'c', text: 'now' });
    expect(model.requests[0]!.history.map((t) => t.text)).to.deep.equal(['😀😀😀😀', 'bbb', '😀😀😀']);
    await save.execute({ userId: 'u', conversationId: 'c', role: 'user', text: 'x' });
    await send.execute({ userId: 'u', conversationId: 'c', text: 'again' });
    expect(model.requests[1]!.history.map((t) => t.text).slice(0, 2)).to.deep.equal(['😀😀😀', 'now']);
  });

  it('stores the reply after the user message even if the clock steps back', async () => {
    const { clock, unitOfWork } = setUp();
    const model = new RecordingModel(() => {
      clock.time = new Date('2026-11-22T09:00:00.000Z');
      return {};
    });
    const { send } = chatApplication(model, { unitOfWork, clock, ids: new CountingIds(), chat: { maxTextLength: 10, historyMessages: 0, historyChars: 0 } });
    const exchange = await send.execute({ userId: 'u', text: 'hi' });
    expect(exchange.createdAt.toISOString()).to.equal('2026-11-22T10:00:00.000Z');
  });

  it('an empty reply from the model is a model failure, and the user message stays stored', async () => {
    const { send, unitOfWork } = setUp(undefined, new RecordingModel(() => ({ text: '  ' })));
    let failure: unknown;
    await send.execute({ userId: 'u', conversationId: 'c', text: 'hello?' }).catch((error) => (failure = error));
    expect(failure).to.be.instanceOf(ChatModelFailedError);
    expect(await unitOfWork.run((r) => r.messages.count('c'))).to.equal(1);
  });

  it('a repeated message whose reply died with its producer (stale) is answered again, without waiting on its own step of the store', async () => {
    const unitOfWork = new InMemoryUnitOfWork();
    const clock = new FixedClock();
    const model = new RecordingModel(() => ({ text: 'again' }));
    const { turns, send, jobs } = chatApplication(model, { unitOfWork, clock, ids: new CountingIds(), replies: { staleMs: 1000 } });
    // The turn is begun, and nothing produces its reply: as if its instance had died.
    const begun = await turns.execute({ userId: 'u', conversationId: 'c', messageId: 'q1', text: 'hello' }, 'recording');
    expect(begun.reply.status).to.equal('in_progress');
    clock.time = new Date(clock.time.getTime() + 5000);
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the repeated message is still waiting after 5 s')), 5000)));
    try {
      const exchange = await Promise.race([send.execute({ userId: 'u', conversationId: 'c', messageId: 'q1', text: 'hello' }), stuck]);
      expect(exchange.response).to.equal('again');
      expect(exchange.userMessageId).to.equal('q1');
      expect(exchange.messageId, 'a new reply').to.not.equal(begun.reply.messageId);
    } finally {
      clearTimeout(timer);
      await jobs.shutdown(clock.now());
    }
    expect(await unitOfWork.run((r) => r.messages.count('c'))).to.equal(2); // the question, and the new reply in place of the interrupted one
  });
});

import { expect } from 'chai';
import type { ChatChunk, ChatModel } from '../../src/application/ports/chat-model.js';
import { ChatTurns } from '../../src/application/services/chat-turns.js';
import { StreamChatReply, type ChatStreamEvent } from '../../src/application/use-cases/stream-chat-reply.js';
import { InMemoryUnitOfWork } from '../../src/adapters/persistence/memory/in-memory-unit-of-work.js';
import { JsonFilePersonaSource } from '../../src/adapters/persona/json-file-persona-source.js';
import { UuidV7IdGenerator } from '../../src/adapters/system/uuid-v7-id-generator.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { ChatModelFailedError } from '../../src/domain/errors.js';

/** Yields the scripted chunks; `then` decides how it ends after them. */
function scripted(chunks: ChatChunk[], then: 'end' | Error | ((signal: AbortSignal) => void) = 'end'): ChatModel {
  return {
    name: 'scripted',
    complete: () => Promise.reject(new Error('not used')),
    async *stream(_request, signal) {
      for (const chunk of chunks) yield chunk;
      if (then instanceof Error) throw then;
      if (typeof then === 'function') {
        then(signal!);
        signal!.throwIfAborted();
      }
    },
  };
}
const finish: ChatChunk = { type: 'finish', finishReason: 'stop', model: 'scripted-1', usage: null };

function setUp(model: ChatModel) {
  const unitOfWork = new InMemoryUnitOfWork();
  const turns = new ChatTurns(unitOfWork, new JsonFilePersonaSource(), new SystemClock(), new UuidV7IdGenerator(), { maxTextLength: 100, historyMessages: 5, historyChars: 1000 });
  const stored = () => unitOfWork.run((r) => r.messages.page('c', 'asc', 10, null)).then((p) => p.messages);
  return { useCase: new StreamChatReply(turns, model), stored };
}

async function run(useCase: StreamChatReply, controller = new AbortController(), messageId?: string) {
  const stream = await useCase.execute({ userId: 'u', conversationId: 'c', text: 'hi', messageId });
  const events: ChatStreamEvent[] = [];
  for await (const event of stream.events(controller.signal)) events.push(event);
  return { stream, events };
}

describe('StreamChatReply', () => {
  it('passes deltas on, stores the reply under the announced id, then reports done', async () => {
    const { useCase, stored } = setUp(scripted([{ type: 'delta', text: 'Hel' }, { type: 'delta', text: '' }, { type: 'delta', text: 'lo' }, finish]));
    const { stream, events } = await run(useCase);
    expect(events.map((e) => e.type)).to.deep.equal(['delta', 'delta', 'done']);
    expect(events[2]).to.deep.include({ response: 'Hello', messageId: stream.messageId, finishReason: 'stop' });
    const reply = (await stored())[1]!;
    expect(reply.messageId).to.equal(stream.messageId);
    expect(reply.metadata).to.deep.equal({ model: 'scripted-1', finish_reason: 'stop' });
  });

  it('on abort: stores the partial reply as cancelled and ends without done or error', async () => {
    const controller = new AbortController();
    const { useCase, stored } = setUp(scripted([{ type: 'delta', text: 'Half a ' }], () => controller.abort()));
    const { events } = await run(useCase, controller);
    expect(events.map((e) => e.type)).to.deep.equal(['delta']);
    const reply = (await stored())[1]!;
    expect(reply.text).to.equal('Half a ');
    expect(reply.metadata).to.deep.equal({ model: 'scripted', finish_reason: 'cancelled' });
  });

  it('on a model failure: stores the partial reply as error and reports the failure', async () => {
    const failure = new ChatModelFailedError('the language model answered 500 Internal Server Error');
    const { useCase, stored } = setUp(scripted([{ type: 'delta', text: 'Par' }], failure));
    const { events } = await run(useCase);
    expect(events.at(-1)).to.deep.equal({ type: 'error', error: failure });
    expect((await stored())[1]!.metadata).to.deep.equal({ model: 'scripted', finish_reason: 'error' });
  });

  it('a model that stops without finishing is a failure', async () => {
    const { useCase, stored } = setUp(scripted([{ type: 'delta', text: 'Par' }]));
    const { events } = await run(useCase);
    const last = events.at(-1)!;
    expect(last.type === 'error' && last.error).to.be.instanceOf(ChatModelFailedError);
    expect((await stored())[1]!.metadata).to.include({ finish_reason: 'error' });
  });

  it('an empty reply is a failure, and nothing but the user message is stored', async () => {
    const { useCase, stored } = setUp(scripted([finish]));
    const { events } = await run(useCase);
    expect(events).to.have.length(1);
    expect(events[0]!.type === 'error' && (events[0]!.error as Error).message).to.equal('the language model returned an empty reply');
    expect((await stored()).map((m) => m.role)).to.deep.equal(['user']);
  });

  it('replays a stored reply for an answered message_id without asking the model', async () => {
    let calls = 0;
    const model = scripted([{ type: 'delta', text: 'Once' }, finish]);
    const counting: ChatModel = { ...model, stream: (r, s) => (calls++, model.stream(r, s)) };
    const { useCase } = setUp(counting);
    const first = await run(useCase, undefined, 'm-1');
    const again = await run(useCase, undefined, 'm-1');
    expect(again.events).to.deep.equal(first.events);
    expect(calls).to.equal(1);
  });
});

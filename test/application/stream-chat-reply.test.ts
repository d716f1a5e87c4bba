import { expect } from 'chai';
import { messageJson } from '../../src/adapters/http/presenters.js';
import type { ChatChunk, ChatModel } from '../../src/application/ports/chat-model.js';
import type { FeedEvent } from '../../src/application/replies/reply-feed.js';
import type { StreamChatReply } from '../../src/application/replies/stream-chat-reply.js';
import { ChatModelFailedError } from '../../src/domain/errors.js';
import { chatApplication } from '../support/chat-application.js';

/** Yields the scripted chunks; `then` decides how it ends after them. */
function scripted(chunks: ChatChunk[], then: 'end' | Error | ((signal: AbortSignal) => Promise<void>) = 'end'): ChatModel {
  return {
    name: 'scripted',
    complete: () => Promise.reject(new Error('not used')),
    async *stream(_request, signal) {
      for (const chunk of chunks) yield chunk;
      if (then instanceof Error) throw then;
      if (typeof then === 'function') {
        await then(signal!);
        signal!.throwIfAborted();
      }
    },
  };
}
const finish: ChatChunk = { type: 'finish', finishReason: 'stop', model: 'scripted-1', usage: null };
/** Waits until the signal aborts (the model is still thinking). */
const thinking = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

function setUp(model: ChatModel) {
  const app = chatApplication(model);
  // Metadata as clients read it (a reply's finish_reason in it).
  const stored = () =>
    app.unitOfWork.run((r) => r.messages.pageOwned('c', 'u', 'asc', 10, null)).then((p) => p.page.messages.map((m) => m.with({ metadata: messageJson(m).metadata })));
  return { useCase: app.stream, stored, jobs: app.jobs };
}

async function run(useCase: StreamChatReply, messageId?: string, from = 0) {
  const stream = await useCase.execute({ userId: 'u', conversationId: 'c', text: 'hi', messageId });
  const events: FeedEvent[] = [];
  for await (const event of stream.events(from, new AbortController().signal)) events.push(event);
  return { stream, events };
}

const texts = (events: FeedEvent[]) => events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');

describe('StreamChatReply', () => {
  it('passes the text on, stores the reply under the announced id, then ends with the stored reply', async () => {
    const { useCase, stored } = setUp(scripted([{ type: 'delta', text: 'Hel' }, { type: 'delta', text: '' }, { type: 'delta', text: 'lo' }, finish]));
    const { stream, events } = await run(useCase);
    expect(texts(events)).to.equal('Hello');
    const end = events.at(-1)!;
    expect(end).to.deep.include({ type: 'end', finishReason: 'stop', position: 5 });
    expect(end.type === 'end' && end.message?.text).to.equal('Hello');
    const reply = (await stored())[1]!;
    expect(reply.messageId).to.equal(stream.messageId);
    expect(reply.status).to.equal('completed');
    expect(reply.metadata).to.deep.equal({ model: 'scripted-1', finish_reason: 'stop' });
  });

  it('goes on when its listener leaves: the whole reply is stored', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { useCase, stored, jobs } = setUp(scripted([{ type: 'delta', text: 'Half ' }], async () => held));
    const stream = await useCase.execute({ userId: 'u', conversationId: 'c', text: 'hi' });
    const leaving = new AbortController();
    for await (const event of stream.events(0, leaving.signal)) {
      if (event.type === 'text') leaving.abort();
    }
    expect((await stored())[1]!.status).to.equal('in_progress');
    release();
    await jobs.local(stream.messageId)?.done;
    const reply = (await stored())[1]!;
    expect(reply.status).to.equal('completed');
    expect(reply.text).to.equal('Half ');
  });

  it('a stop stores the text so far as cancelled and ends every listener with it', async () => {
    const { useCase, stored, jobs } = setUp(scripted([{ type: 'delta', text: 'Half a ' }], thinking));
    const stream = await useCase.execute({ userId: 'u', conversationId: 'c', text: 'hi' });
    const listening = (async () => {
      const events: FeedEvent[] = [];
      for await (const event of stream.events(0, new AbortController().signal)) {
        events.push(event);
        if (event.type === 'text') void jobs.requestStop(stream.messageId);
      }
      return events;
    })();
    const events = await listening;
    expect(events.at(-1)).to.deep.include({ type: 'end', finishReason: 'cancelled' });
    const reply = (await stored())[1]!;
    expect(reply.text).to.equal('Half a ');
    expect(reply.metadata).to.deep.equal({ model: 'scripted', finish_reason: 'cancelled' });
  });

  it('on a model failure: stores the partial reply as error and reports the failure', async () => {
    const failure = new ChatModelFailedError('the language model answered 500 Internal Server Error');
    const { useCase, stored } = setUp(scripted([{ type: 'delta', text: 'Par' }], failure));
    const { events } = await run(useCase);
    expect(events.at(-1)).to.deep.include({ type: 'end', failure, finishReason: 'error' });
    expect((await stored())[1]!.metadata).to.deep.equal({ model: 'scripted', finish_reason: 'error', error: failure.message });
  });

  it('a model that stops without finishing is a failure', async () => {
    const { useCase, stored } = setUp(scripted([{ type: 'delta', text: 'Par' }]));
    const { events } = await run(useCase);
    const last = events.at(-1)!;
    expect(last.type === 'end' && last.failure).to.be.instanceOf(ChatModelFailedError);
    expect((await stored())[1]!.metadata).to.include({ finish_reason: 'error' });
  });

  it('an empty reply is a failure, and nothing but the user message is stored', async () => {
    const { useCase, stored } = setUp(scripted([finish]));
    const { events } = await run(useCase);
    expect(events).to.have.length(1);
    expect(events[0]!.type === 'end' && (events[0]!.failure as Error).message).to.equal('the language model returned an empty reply');
    expect((await stored()).map((m) => m.role)).to.deep.equal(['user']);
  });

  it('replays a stored reply for an answered message_id without asking the model', async () => {
    let calls = 0;
    const model = scripted([{ type: 'delta', text: 'Once' }, finish]);
    const counting: ChatModel = { ...model, stream: (r, s) => (calls++, model.stream(r, s)) };
    const { useCase } = setUp(counting);
    const first = await run(useCase, 'm-1');
    const again = await run(useCase, 'm-1');
    expect(texts(again.events)).to.equal(texts(first.events));
    expect(again.stream.messageId).to.equal(first.stream.messageId);
    expect(calls).to.equal(1);
  });

  it('reads from any position: only the code points after it', async () => {
    const { useCase } = setUp(scripted([{ type: 'delta', text: 'a😀b' }, { type: 'delta', text: 'cd' }, finish]));
    const first = await run(useCase, 'm-2');
    expect(texts(first.events)).to.equal('a😀bcd');
    const { events } = await run(useCase, 'm-2', 2);
    expect(texts(events)).to.equal('bcd');
    expect(events.at(-1)).to.deep.include({ position: 5 });
  });
});

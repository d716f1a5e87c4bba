import { expect } from 'chai';
import type { ChatChunk, ChatModel, ChatRequest } from '../../../src/application/ports/chat-model.js';
import { InstrumentedChatModel } from '../../../src/adapters/metrics/instrumented-chat-model.js';
import { Metrics } from '../../../src/adapters/metrics/metrics.js';
import { OfflineChatModel } from '../../../src/adapters/llm/offline/offline-chat-model.js';

const request = { persona: { name: 'x' }, history: [], text: 'hi' } as unknown as ChatRequest;

/** A model whose stream yields `pieces`, then finishes (or throws `failure` instead). */
function model(pieces: string[], failure?: Error): ChatModel & { closed: boolean } {
  const inner = {
    closed: false,
    complete: () => Promise.reject(new Error('not used')),
    async *stream(): AsyncGenerator<ChatChunk> {
      try {
        for (const text of pieces) yield { type: 'delta', text };
        if (failure) throw failure;
        yield { type: 'finish', finishReason: 'stop', model: 'm', usage: null };
      } finally {
        inner.closed = true;
      }
    },
  };
  return inner;
}

/** The stream-mode observations of the histogram, by outcome. */
async function observed(metrics: Metrics): Promise<Record<string, number>> {
  const { values } = await metrics.chatModelDuration.get();
  return Object.fromEntries(values.filter((v) => v.metricName === 'chat_model_duration_seconds_count' && v.labels.mode === 'stream').map((v) => [v.labels.outcome, v.value]));
}

describe('InstrumentedChatModel.stream', () => {
  it('passes every chunk through as it is and observes one call, "ok", once the model finished', async () => {
    const metrics = new Metrics();
    const chunks: ChatChunk[] = [];
    for await (const chunk of new InstrumentedChatModel(model(['a', 'b']), metrics).stream(request)) chunks.push(chunk);
    expect(chunks).to.deep.equal([
      { type: 'delta', text: 'a' },
      { type: 'delta', text: 'b' },
      { type: 'finish', finishReason: 'stop', model: 'm', usage: null },
    ]);
    expect(await observed(metrics)).to.deep.equal({ ok: 1 });
  });

  it('a model that fails: its error reaches the reader, observed once as "error"', async () => {
    const metrics = new Metrics();
    const texts: string[] = [];
    let caught: unknown;
    try {
      for await (const chunk of new InstrumentedChatModel(model(['a'], new Error('boom')), metrics).stream(request)) if (chunk.type === 'delta') texts.push(chunk.text);
    } catch (error) {
      caught = error;
    }
    expect(texts).to.deep.equal(['a']);
    expect((caught as Error).message).to.equal('boom');
    expect(await observed(metrics)).to.deep.equal({ error: 1 });
  });

  it('a reader that stops early closes the model stream; observed once, "cancelled" when its signal aborted', async () => {
    const metrics = new Metrics();
    const inner = model(['a', 'b', 'c']);
    const abort = new AbortController();
    for await (const chunk of new InstrumentedChatModel(inner, metrics).stream(request, abort.signal)) {
      expect(chunk).to.deep.equal({ type: 'delta', text: 'a' });
      abort.abort();
      break;
    }
    expect(inner.closed).to.equal(true);
    expect(await observed(metrics)).to.deep.equal({ cancelled: 1 });
  });
});

describe('InstrumentedChatModel.immediate', () => {
  it('is the wrapped model\'s: the offline model answers at once, a model over the network does not', () => {
    const metrics = new Metrics();
    expect(new InstrumentedChatModel(new OfflineChatModel(), metrics).immediate).to.equal(true);
    expect(new InstrumentedChatModel(model([]), metrics).immediate).to.equal(undefined);
  });
});

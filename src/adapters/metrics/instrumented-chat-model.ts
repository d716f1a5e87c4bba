import type { ChatChunk, ChatModel, ChatReply, ChatRequest, TokenUsage } from '../../application/ports/chat-model.js';
import { timed, type Metrics } from './metrics.js';

/** A ChatModel that reports its latencies; behaves exactly like the one it wraps. */
export class InstrumentedChatModel implements ChatModel {
  readonly name?: string;
  readonly estimateUsage?: (request: ChatRequest, text: string) => TokenUsage;

  constructor(
    private readonly inner: ChatModel,
    private readonly metrics: Metrics,
  ) {
    this.name = inner.name;
    if (inner.estimateUsage) this.estimateUsage = inner.estimateUsage.bind(inner);
  }

  complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatReply> {
    return timed(this.metrics.chatModelDuration, { mode: 'complete' }, () => this.inner.complete(request, signal));
  }

  async *stream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<ChatChunk> {
    const stop = this.metrics.chatModelDuration.startTimer({ mode: 'stream' });
    let outcome = 'error';
    try {
      for await (const chunk of this.inner.stream(request, signal)) {
        if (chunk.type === 'finish') outcome = 'ok';
        yield chunk;
      }
    } finally {
      stop({ outcome: signal?.aborted ? 'cancelled' : outcome });
    }
  }
}

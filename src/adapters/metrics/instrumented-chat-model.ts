import type { ChatChunk, ChatModel, ChatReply, ChatRequest, TokenUsage } from '../../application/ports/chat-model.js';
import { timed, type Metrics } from './metrics.js';

/** A ChatModel that reports its latencies; behaves exactly like the one it wraps. */
export class InstrumentedChatModel implements ChatModel {
  readonly name?: string;
  readonly immediate?: boolean;
  readonly estimateUsage?: (request: ChatRequest, text: string) => TokenUsage;

  constructor(
    private readonly inner: ChatModel,
    private readonly metrics: Metrics,
  ) {
    this.name = inner.name;
    if (inner.immediate) this.immediate = true;
    if (inner.estimateUsage) this.estimateUsage = inner.estimateUsage.bind(inner);
  }

  complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatReply> {
    return timed(this.metrics.chatModelDuration, { mode: 'complete' }, () => this.inner.complete(request, signal));
  }

  /**
   * The inner stream's chunks as they are, its latency observed when it ends (or fails, or is
   * left): passed through by hand rather than by a generator of its own, which would add a
   * promise and a turn of the queue to every piece of every reply.
   */
  stream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<ChatChunk> {
    const { inner, metrics } = this;
    return {
      [Symbol.asyncIterator]() {
        const chunks = inner.stream(request, signal)[Symbol.asyncIterator]();
        const stop = metrics.chatModelDuration.startTimer({ mode: 'stream' });
        let outcome = 'error';
        let stopped = false;
        const end = () => {
          if (stopped) return;
          stopped = true;
          stop({ outcome: signal?.aborted ? 'cancelled' : outcome });
        };
        return {
          next: () =>
            chunks.next().then(
              (result) => {
                if (result.done) end();
                else if (result.value.type === 'finish') outcome = 'ok';
                return result;
              },
              (error: unknown) => {
                end();
                throw error;
              },
            ),
          return: async (value?: unknown) => {
            try {
              return (await chunks.return?.(value)) ?? { done: true as const, value: undefined };
            } finally {
              end();
            }
          },
        };
      },
    };
  }
}

import type { ChatChunk, ChatModel, ChatReply, ChatRequest } from '../../src/application/ports/chat-model.js';

type Step = { type: 'say'; text: string } | { type: 'finish'; reason: string } | { type: 'fail'; error: Error };

/**
 * One call to the scripted model: the test says what the model says, and when. Nothing is
 * produced until the test calls `say`, `finish` or `fail`, so a test can look at the service
 * between any two pieces of a reply.
 */
export class ScriptedCall {
  /** Every piece said so far, in order. */
  readonly said: string[] = [];
  private readonly steps: Step[] = [];
  private wake: (() => void) | undefined;
  /** Resolves when the service aborts the call (a stop, a cancelled disconnect, a shutdown). */
  readonly aborted: Promise<void>;

  constructor(
    readonly request: ChatRequest,
    readonly signal: AbortSignal | undefined,
  ) {
    this.aborted = new Promise((resolve) => {
      if (signal?.aborted) resolve();
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  get wasAborted(): boolean {
    return this.signal?.aborted ?? false;
  }

  /** The whole text said so far. */
  get text(): string {
    return this.said.join('');
  }

  say(...pieces: string[]): this {
    for (const text of pieces) this.push({ type: 'say', text });
    return this;
  }

  finish(reason = 'stop'): void {
    this.push({ type: 'finish', reason });
  }

  fail(error: Error): void {
    this.push({ type: 'fail', error });
  }

  private push(step: Step): void {
    if (step.type === 'say') this.said.push(step.text);
    this.steps.push(step);
    this.wake?.();
  }

  /** The steps as they come, until the end or an abort. */
  async *run(): AsyncGenerator<Step> {
    for (;;) {
      if (this.signal?.aborted) throw this.signal.reason ?? new Error('aborted');
      const step = this.steps.shift();
      if (step) {
        yield step;
        if (step.type !== 'say') return;
        continue;
      }
      await Promise.race([new Promise<void>((resolve) => (this.wake = resolve)), this.aborted]);
      this.wake = undefined;
    }
  }
}

/** A ChatModel the test drives piece by piece (see ScriptedCall); it remembers every call. */
export class ScriptedChatModel implements ChatModel {
  readonly name = 'scripted';
  readonly calls: ScriptedCall[] = [];
  private readonly waiters = new Map<number, (call: ScriptedCall) => void>();
  private seen = 0;

  /** Hands out only calls made from now on (a test that failed half-way leaves its call behind). */
  forgetCalls(): void {
    this.seen = this.calls.length;
    this.waiters.clear();
  }

  /** The next call not yet handed out by this method (waits for it). */
  async nextCall(): Promise<ScriptedCall> {
    const index = this.seen++;
    if (this.calls[index]) return this.calls[index]!;
    return new Promise((resolve) => this.waiters.set(index, resolve));
  }

  private begin(request: ChatRequest, signal: AbortSignal | undefined): ScriptedCall {
    const call = new ScriptedCall(request, signal);
    const index = this.calls.push(call) - 1;
    this.waiters.get(index)?.(call);
    this.waiters.delete(index);
    return call;
  }

  async *stream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatChunk> {
    const call = this.begin(request, signal);
    for await (const step of call.run()) {
      if (step.type === 'say') yield { type: 'delta', text: step.text };
      else if (step.type === 'fail') throw step.error;
      else yield { type: 'finish', finishReason: step.reason, model: 'scripted-1', usage: null };
    }
  }

  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatReply> {
    const call = this.begin(request, signal);
    let text = '';
    for await (const step of call.run()) {
      if (step.type === 'say') text += step.text;
      else if (step.type === 'fail') throw step.error;
      else return { text, finishReason: step.reason, model: 'scripted-1', usage: null };
    }
    throw new Error('unreachable: a scripted call ends with finish or fail');
  }
}

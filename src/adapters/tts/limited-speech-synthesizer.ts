import type { AudioChunk, SpeechRequest, SpeechSynthesizer, Voice } from '../../application/ports/speech-synthesizer.js';
import { CapacityExhaustedError, SpeechEngineTimedOutError } from '../../domain/errors.js';
import { BoundedConcurrency } from './bounded-concurrency.js';
import { untilAborted } from './until-aborted.js';

export interface SpeechLimits {
  /** Syntheses that may run at once. */
  maxConcurrent: number;
  /** Syntheses that may wait for a turn; past that, CapacityExhaustedError (503). */
  maxQueue: number;
  /** Longest time for a whole synthesis, waiting included; past that, SpeechEngineTimedOutError (504). */
  timeoutMs: number;
}

export const DEFAULT_SPEECH_LIMITS: SpeechLimits = { maxConcurrent: 2, maxQueue: 16, timeoutMs: 60_000 };

const ignore = () => {};

/**
 * A speech engine held to limits: at most `maxConcurrent` syntheses at once, `maxQueue` more
 * waiting in order, and a deadline for each, which also stops the engine. A synthesis keeps
 * its turn until the engine has really stopped, so an engine that cannot be interrupted
 * never runs more at once than allowed.
 */
export class LimitedSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine: string;
  readonly formats: SpeechSynthesizer['formats'];
  private readonly slots: BoundedConcurrency;

  constructor(
    readonly inner: SpeechSynthesizer,
    private readonly limits: SpeechLimits = DEFAULT_SPEECH_LIMITS,
  ) {
    this.engine = inner.engine;
    this.formats = inner.formats;
    this.slots = new BoundedConcurrency(
      { maxRunning: limits.maxConcurrent, maxWaiting: limits.maxQueue },
      ({ maxRunning, maxWaiting }) =>
        new CapacityExhaustedError(`speech synthesis is busy (${maxRunning} running, ${maxWaiting} waiting); try again shortly`),
    );
  }

  voices(): Promise<Voice[]> {
    return this.inner.voices();
  }

  findVoice(id: string): Promise<Voice | null> {
    return this.inner.findVoice(id);
  }

  defaultVoice(): string {
    return this.inner.defaultVoice();
  }

  async *synthesize(request: SpeechRequest, signal?: AbortSignal): AsyncGenerator<AudioChunk> {
    const deadline = new AbortController();
    const { timeoutMs } = this.limits;
    const timer = setTimeout(() => deadline.abort(new SpeechEngineTimedOutError(`speech synthesis took longer than ${timeoutMs} ms`)), timeoutMs);
    const stop = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
    let release: (() => void) | undefined;
    let iterator: AsyncIterator<AudioChunk> | undefined;
    let pending: Promise<unknown> | undefined;
    try {
      release = await this.slots.turn(stop);
      iterator = this.inner.synthesize(request, stop)[Symbol.asyncIterator]();
      for (;;) {
        const next = iterator.next();
        pending = next;
        const result = await untilAborted(next, stop);
        pending = undefined;
        if (result.done) return;
        yield result.value;
      }
    } catch (error) {
      // Whatever the engine threw once the deadline passed, the cause is the deadline.
      if (stop.aborted) throw stop.reason;
      throw error;
    } finally {
      clearTimeout(timer);
      if (release) {
        const stopped = (pending ?? Promise.resolve()).then(ignore, ignore);
        void stopped
          .then(() => iterator?.return?.())
          .then(ignore, ignore)
          .finally(release);
      }
    }
  }
}

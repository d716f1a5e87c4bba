import { createHash } from 'node:crypto';
import { CapacityExhaustedError, SpeechEngineTimedOutError } from '../../domain/errors.js';
import type { SpeechCache } from '../ports/speech-cache.js';
import type { SpeechRequest, SpeechSynthesizer } from '../ports/speech-synthesizer.js';
import { BoundedConcurrency } from './bounded-concurrency.js';

export interface SpeechSettings {
  /** Syntheses that may run at once. */
  maxConcurrent: number;
  /** Syntheses that may wait for a turn; past that, 503. */
  maxQueue: number;
  /** Longest wait for audio, queueing included; past that, 504. */
  timeoutMs: number;
}

export const DEFAULT_SPEECH_SETTINGS: SpeechSettings = { maxConcurrent: 2, maxQueue: 16, timeoutMs: 60_000 };

/**
 * Audio for a request: from the cache, else made by the engine, once. Identical requests in
 * flight share one synthesis; the rest queue for a bounded number of slots and give up at
 * the deadline, which also stops the engine.
 */
export class SpeechAudio {
  private readonly slots: BoundedConcurrency;
  private readonly inFlight = new Map<string, Promise<Uint8Array>>();

  constructor(
    private readonly synthesizer: SpeechSynthesizer,
    private readonly cache: SpeechCache,
    private readonly settings: SpeechSettings = DEFAULT_SPEECH_SETTINGS,
  ) {
    this.slots = new BoundedConcurrency(
      { maxRunning: settings.maxConcurrent, maxWaiting: settings.maxQueue },
      ({ maxRunning, maxWaiting }) =>
        new CapacityExhaustedError(`speech synthesis is busy (${maxRunning} running, ${maxWaiting} waiting); try again shortly`),
    );
  }

  /** Names the audio a request gives: the same for the same engine, voice, format, speed and text. */
  keyOf(request: SpeechRequest): string {
    const identity = [this.synthesizer.engine, request.voice, request.format, request.speed, request.text];
    return createHash('sha256').update(JSON.stringify(identity)).digest('base64url');
  }

  async audioFor(request: SpeechRequest, key: string = this.keyOf(request)): Promise<Uint8Array> {
    const cached = await this.cache.get(key);
    if (cached) return cached;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const made = this.make(request, key);
    this.inFlight.set(key, made);
    const forget = () => this.inFlight.delete(key);
    made.then(forget, forget);
    return made;
  }

  private async make(request: SpeechRequest, key: string): Promise<Uint8Array> {
    const deadline = new AbortController();
    const { timeoutMs } = this.settings;
    const timer = setTimeout(
      () => deadline.abort(new SpeechEngineTimedOutError(`speech synthesis took longer than ${timeoutMs} ms`)),
      timeoutMs,
    );
    try {
      const synthesis = this.slots.run(() => this.synthesizer.synthesize(request, deadline.signal), deadline.signal);
      const audio = await untilAborted(synthesis, deadline.signal);
      await this.cache.set(key, audio);
      return audio;
    } catch (error) {
      // Whatever the engine threw once the deadline passed, the cause is the deadline.
      if (deadline.signal.aborted) throw deadline.signal.reason;
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The promise's outcome, or the signal's reason as soon as it aborts (even if the work goes on). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

import type { AudioChunk, AudioFormat, SpeechRequest, SpeechSynthesizer, Voice } from '../../src/application/ports/speech-synthesizer.js';
import { makeMp3, makeWav } from './audio.js';

/**
 * A speech engine for HTTP tests: a tone as long as a real engine would speak the text,
 * counting its calls; it can be told to fail, or to hold every synthesis until released.
 * By default the file comes in one piece; with `parts` > 1 a WAV comes as a stream of that
 * many pieces (header saying "length unknown", true sizes at the end), and `holdAfterFirst`
 * keeps the rest back until released, as a real engine speaking sentence after sentence.
 */
export class FakeSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine = 'fake-engine 1';
  readonly formats: readonly AudioFormat[] = ['wav', 'mp3', 'pcm'];
  readonly requests: SpeechRequest[] = [];
  /** Thrown by every synthesis, when set. */
  failure: Error | undefined;
  /** Thrown after the first piece, when set. */
  failureAfterFirst: Error | undefined;
  /** Pieces of a WAV file. */
  parts = 1;
  private held: Promise<void> | undefined;
  private releaseHeld: (() => void) | undefined;
  private afterFirst: Promise<void> | undefined;
  private releaseAfterFirst: (() => void) | undefined;
  /** Syntheses started and not yet finished. */
  running = 0;
  /** Keep holding even when aborted, as an engine that cannot be interrupted would. */
  ignoreAbort = false;

  static readonly VOICES: Voice[] = [
    { id: 'alpha', name: 'Alpha', language: 'en' },
    { id: 'beta', name: 'Beta', language: 'fr' },
  ];

  get calls(): number {
    return this.requests.length;
  }

  /** Holds every synthesis (started or to come) until `release()`. */
  hold(): void {
    this.held = new Promise((resolve) => (this.releaseHeld = resolve));
  }

  release(): void {
    this.releaseHeld?.();
    this.held = undefined;
  }

  /** Holds every synthesis after its first piece until `releaseRest()`. */
  holdAfterFirst(): void {
    this.afterFirst = new Promise((resolve) => (this.releaseAfterFirst = resolve));
  }

  releaseRest(): void {
    this.releaseAfterFirst?.();
    this.afterFirst = undefined;
  }

  async voices(): Promise<Voice[]> {
    return FakeSpeechSynthesizer.VOICES;
  }

  async findVoice(id: string): Promise<Voice | null> {
    return FakeSpeechSynthesizer.VOICES.find((voice) => voice.id === id) ?? null;
  }

  defaultVoice(): string {
    return 'alpha';
  }

  async *synthesize(request: SpeechRequest, signal?: AbortSignal): AsyncGenerator<AudioChunk> {
    signal?.throwIfAborted();
    this.requests.push(request);
    this.running++;
    try {
      if (this.held) await this.wait(this.held, signal);
      if (this.failure) throw this.failure;
      const seconds = ([...request.text].length * 0.06) / request.speed;
      if (request.format === 'mp3') {
        yield { bytes: makeMp3(seconds, 22_050) };
        return;
      }
      const file = makeWav(seconds, 22_050);
      if (request.format === 'pcm') {
        yield { bytes: file.subarray(44) };
        return;
      }
      if (this.parts <= 1) {
        yield { bytes: file };
        return;
      }
      // A streamed WAV: sizes unknown in the header, the samples in parts, then the true sizes.
      const streamed = makeWav(seconds, 22_050, 0xffffffff);
      const step = Math.ceil((streamed.length - 44) / this.parts / 2) * 2;
      for (let at = 44, index = 0; at < streamed.length; at += step, index++) {
        yield { bytes: streamed.subarray(index === 0 ? 0 : at, at + step) };
        if (index === 0) {
          if (this.afterFirst) await this.wait(this.afterFirst, signal);
          if (this.failureAfterFirst) throw this.failureAfterFirst;
        }
      }
      yield { at: 4, bytes: file.subarray(4, 8) };
      yield { at: 40, bytes: file.subarray(40, 44) };
    } finally {
      this.running--;
    }
  }

  private wait(gate: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (!this.ignoreAbort) signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      void gate.then(resolve);
    });
  }
}

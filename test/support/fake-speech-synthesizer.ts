import type { SpeechRequest, SpeechSynthesizer, Voice } from '../../src/application/ports/speech-synthesizer.js';
import { makeMp3, makeWav } from './audio.js';

/**
 * A speech engine for HTTP tests: a tone as long as a real engine would speak the text,
 * counting its calls; it can be told to fail, or to hold every synthesis until released.
 */
export class FakeSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine = 'fake-engine 1';
  readonly requests: SpeechRequest[] = [];
  /** Thrown by every synthesis, when set. */
  failure: Error | undefined;
  private held: Promise<void> | undefined;
  private releaseHeld: (() => void) | undefined;
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

  async voices(): Promise<Voice[]> {
    return FakeSpeechSynthesizer.VOICES;
  }

  async findVoice(id: string): Promise<Voice | null> {
    return FakeSpeechSynthesizer.VOICES.find((voice) => voice.id === id) ?? null;
  }

  defaultVoice(): string {
    return 'alpha';
  }

  async synthesize(request: SpeechRequest, signal?: AbortSignal): Promise<Uint8Array> {
    signal?.throwIfAborted();
    this.requests.push(request);
    this.running++;
    try {
      if (this.held) {
        const held = this.held;
        await new Promise<void>((resolve, reject) => {
          if (!this.ignoreAbort) signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          void held.then(resolve);
        });
      }
      if (this.failure) throw this.failure;
      const seconds = ([...request.text].length * 0.06) / request.speed;
      return request.format === 'mp3' ? makeMp3(seconds, 22_050) : makeWav(seconds, 22_050);
    } finally {
      this.running--;
    }
  }
}

import type { SpeechCache } from '../../application/ports/speech-cache.js';
import type { SpeechRequest, SpeechSynthesizer, Voice } from '../../application/ports/speech-synthesizer.js';
import { timed, type Metrics } from './metrics.js';

/** A SpeechSynthesizer that reports synthesis latency; otherwise the one it wraps. */
export class InstrumentedSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine: string;

  constructor(
    readonly inner: SpeechSynthesizer,
    private readonly metrics: Metrics,
  ) {
    this.engine = inner.engine;
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

  synthesize(request: SpeechRequest, signal?: AbortSignal): Promise<Uint8Array> {
    const labels = { engine: this.engine.split(/[:/ ]/)[0] ?? 'engine', format: request.format };
    return timed(this.metrics.speechDuration, labels, () => this.inner.synthesize(request, signal));
  }
}

/** A SpeechCache that counts hits and misses. */
export class InstrumentedSpeechCache implements SpeechCache {
  constructor(
    private readonly inner: SpeechCache,
    private readonly metrics: Metrics,
  ) {}

  async get(key: string): Promise<Uint8Array | null> {
    const audio = await this.inner.get(key);
    this.metrics.speechCacheLookups.inc({ result: audio ? 'hit' : 'miss' });
    return audio;
  }

  set(key: string, audio: Uint8Array): Promise<void> {
    return this.inner.set(key, audio);
  }
}

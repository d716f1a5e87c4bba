import type { SpeechCache, SpeechOwner } from '../../application/ports/speech-cache.js';
import type { AudioChunk, SpeechRequest, SpeechSynthesizer, Voice } from '../../application/ports/speech-synthesizer.js';
import type { Metrics } from './metrics.js';

/** A SpeechSynthesizer that reports how long syntheses take, first piece to last; otherwise the one it wraps. */
export class InstrumentedSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine: string;
  readonly formats: SpeechSynthesizer['formats'];

  constructor(
    readonly inner: SpeechSynthesizer,
    private readonly metrics: Metrics,
  ) {
    this.engine = inner.engine;
    this.formats = inner.formats;
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
    const labels = { engine: this.engine.split(/[:/ ]/)[0] ?? 'engine', format: request.format };
    const stop = this.metrics.speechDuration.startTimer(labels);
    let outcome = 'error';
    try {
      yield* this.inner.synthesize(request, signal);
      outcome = 'ok';
    } finally {
      stop({ outcome });
    }
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

  set(key: string, audio: Uint8Array, owner?: SpeechOwner): Promise<void> {
    return this.inner.set(key, audio, owner);
  }

  forget(whose: { userId: string } | { conversationId: string }): Promise<void> {
    return this.inner.forget(whose);
  }
}

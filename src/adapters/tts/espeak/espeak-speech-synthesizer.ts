import type { SpeechRequest, SpeechSynthesizer, Voice } from '../../../application/ports/speech-synthesizer.js';
import { FieldInvalidError, SpeechEngineFailedError } from '../../../domain/errors.js';
import { trimSilence } from '../audio/silence.js';
import { monoSamples, monoWav, readWav } from '../audio/wav.js';
import { espeakFiles } from './engine-files.js';
import { EspeakVoiceCatalog } from './espeak-voice-catalog.js';
import { EspeakWorkerPool } from './espeak-worker-pool.js';

export interface EspeakSettings {
  /** Worker threads, so syntheses that can run at once. */
  workers: number;
  /** A voice id (TTS_VOICE); `en-us` when not given. */
  defaultVoice?: string;
  /** How long an idle worker lives. */
  idleMs?: number;
}

/** Bumped whenever our processing of espeak-ng's output changes, so cached audio and ETags follow. */
const OUTPUT_REVISION = 1;
const NORMAL_WPM = 175;
const [MIN_WPM, MAX_WPM] = [80, 450];
const MP3_KBPS = 64;

/** espeak-ng's words per minute for a speed of 0.5..2.0 (1.0 is its default, 175). */
export function wordsPerMinute(speed: number): number {
  return Math.min(MAX_WPM, Math.max(MIN_WPM, Math.round(NORMAL_WPM * speed)));
}

/**
 * eSpeak NG compiled to WebAssembly (the `espeak-ng` package, GPL-3.0-or-later), run in
 * worker threads: 22,050 Hz mono 16-bit speech, trimmed of the silence around it, as WAV,
 * or as MP3 encoded by LAME (`@breezystack/lamejs`, LGPL-3.0) in the same workers.
 */
export class EspeakSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine: string;
  private readonly pool: EspeakWorkerPool;
  private catalog: Promise<EspeakVoiceCatalog> | undefined;

  constructor(private readonly settings: EspeakSettings) {
    this.engine = `espeak-ng@${espeakFiles().version} wasm r${OUTPUT_REVISION}`;
    this.pool = new EspeakWorkerPool(settings.workers, settings.idleMs);
  }

  defaultVoice(): string {
    return this.settings.defaultVoice ?? 'en-us';
  }

  async voices(): Promise<Voice[]> {
    return (await this.voiceCatalog()).listing(this.defaultVoice());
  }

  async findVoice(id: string): Promise<Voice | null> {
    const voice = (await this.voiceCatalog()).find(id);
    return voice && { id: voice.id, name: voice.name, language: voice.language };
  }

  async synthesize(request: SpeechRequest, signal?: AbortSignal): Promise<Uint8Array> {
    signal?.throwIfAborted();
    const voice = (await this.voiceCatalog()).find(request.voice);
    if (!voice) throw new FieldInvalidError('voice', 'must be one of the voices listed by GET /api/tts/voices');
    const args = ['-b', '1', '-v', voice.espeakName, '-s', String(wordsPerMinute(request.speed)), '-w', '/output.wav', '-f', '/input.txt'];
    const run = await this.pool.espeak(args, request.text, signal);
    if (run.status !== 0 || !run.output) {
      throw new SpeechEngineFailedError(`eSpeak NG could not speak the text: ${problems(run.stderr) || `exit status ${run.status}`}`);
    }
    let speech: { samples: Int16Array; sampleRate: number };
    try {
      const wav = readWav(run.output);
      speech = { samples: trimSilence(monoSamples(wav), wav.sampleRate), sampleRate: wav.sampleRate };
    } catch (error) {
      throw new SpeechEngineFailedError(`eSpeak NG made an unreadable WAV file: ${(error as Error).message}`);
    }
    if (request.format === 'wav') return monoWav(speech.samples, speech.sampleRate);
    return (await this.pool.mp3(speech.samples, speech.sampleRate, MP3_KBPS, signal)).output;
  }

  /** Stops the workers; work in progress fails. */
  close(): void {
    this.pool.close();
  }

  private voiceCatalog(): Promise<EspeakVoiceCatalog> {
    this.catalog ??= (async () => {
      const [languages, variants] = await Promise.all([this.pool.espeak(['--voices'], ''), this.pool.espeak(['--voices=variant'], '')]);
      const catalog = new EspeakVoiceCatalog(languages.stdout, variants.stdout);
      if (catalog.size === 0) throw new SpeechEngineFailedError(`eSpeak NG listed no voices: ${problems(languages.stderr)}`);
      return catalog;
    })().catch((error: unknown) => {
      this.catalog = undefined;
      throw error;
    });
    return this.catalog;
  }
}

/** espeak-ng's complaints, without the runtime's note about exiting. */
function problems(stderr: string[]): string {
  return stderr.filter((line) => !line.startsWith('program exited')).join('; ').slice(0, 300);
}

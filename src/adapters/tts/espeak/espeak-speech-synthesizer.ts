import type { AudioChunk, AudioFormat, SpeechRequest, SpeechSynthesizer, Voice } from '../../../application/ports/speech-synthesizer.js';
import { SpeechEngineFailedError, VoiceNotFoundError } from '../../../domain/errors.js';
import { splitSentences } from '../../../domain/sentences.js';
import type { Mp3Encoder } from '../audio/mp3-encoder.js';
import { partEncoder } from '../audio/part-encoder.js';
import { limitSilence } from '../audio/silence.js';
import { monoSamples, readWav } from '../audio/wav.js';
import type { EspeakRunner } from './espeak-runner.js';
import { EspeakVoiceCatalog } from './espeak-voice-catalog.js';
import { untilAborted } from '../until-aborted.js';

export interface EspeakSettings {
  /** A voice id (TTS_VOICE); `en-us` when not given. */
  defaultVoice?: string;
}

/** Bumped whenever our processing of espeak-ng's output changes, so cached audio and ETags follow. */
const OUTPUT_REVISION = 2;
const NORMAL_WPM = 175;
const [MIN_WPM, MAX_WPM] = [80, 450];
/**
 * The most text in each part after the first sentence: a small second part, so audio keeps
 * coming while the rest is spoken, then large ones, since each part costs an engine start
 * (~10 ms native, a process; ~3 ms WebAssembly, its warm instance's memory restored).
 */
const PART_SIZES = [600, 4096];
/** Parts being spoken at once, at most: the next is spoken while one is encoded and sent. */
const PARTS_IN_FLIGHT = 2;
/** Silence kept around each part: little at the ends of the speech, a sentence's pause between parts. */
const EDGE_MS = 60;
const BETWEEN_MS = { after: 250, before: 40 };
/** Spoken once at warm-up: two sentences, so two parts, as a longer text would be. */
const WARM_UP_TEXT = 'Warming up. One, two, three: ready?';

/** espeak-ng's words per minute for a speed of 0.5..2.0 (1.0 is its default, 175). */
export function wordsPerMinute(speed: number): number {
  return Math.min(MAX_WPM, Math.max(MIN_WPM, Math.round(NORMAL_WPM * speed)));
}

/**
 * The text in the parts it is spoken in: the first sentence alone, so that audio can start
 * once it is spoken, then whole sentences packed into larger parts (each costs an engine start).
 */
export function speechParts(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let length = 0;
  for (const sentence of splitSentences(text)) {
    const size = [...sentence].length;
    const limit = parts.length === 0 ? 0 : (PART_SIZES[parts.length - 1] ?? PART_SIZES.at(-1)!);
    if (current !== '' && length + size > limit) {
      parts.push(current);
      current = '';
      length = 0;
    }
    current += sentence;
    length += size;
  }
  if (current !== '') parts.push(current);
  return parts;
}

/**
 * eSpeak NG (GPL-3.0-or-later), run by `runner`: the program installed on the machine, or its
 * WebAssembly build in worker threads. 22,050 Hz mono 16-bit speech as WAV, raw 24 kHz `pcm`,
 * or MP3 by `mp3` (LAME, LGPL). A text is spoken in parts (see `speechParts`): the first piece
 * of audio is ready once the first sentence is, and the next parts are spoken (two at a time
 * at most) while the one before is encoded and sent.
 */
export class EspeakSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine: string;
  readonly formats: readonly AudioFormat[] = ['wav', 'mp3', 'pcm'];
  private catalog: Promise<EspeakVoiceCatalog> | undefined;

  constructor(
    private readonly runner: EspeakRunner,
    private readonly mp3: Mp3Encoder,
    private readonly settings: EspeakSettings = {},
  ) {
    this.engine = `${runner.name} + ${mp3.name} r${OUTPUT_REVISION}`;
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

  async *synthesize(request: SpeechRequest, signal?: AbortSignal): AsyncGenerator<AudioChunk> {
    signal?.throwIfAborted();
    // Listing the voices may start the engine (seconds on a busy machine): an abort does not wait for it.
    const voice = (await untilAborted(this.voiceCatalog(), signal)).find(request.voice);
    if (!voice) throw new VoiceNotFoundError(request.voice);
    const parts = speechParts(request.text);
    if (parts.length === 0) parts.push(request.text);
    // Our own signal too: a part spoken ahead is stopped when the caller stops reading.
    const stop = new AbortController();
    const stopped = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    const speak = (text: string, order: number) => {
      const speech = this.speak(text, voice.espeakName, request.speed, stopped, order);
      speech.catch(() => {}); // read below, or abandoned with the synthesis
      return speech;
    };
    const encoder = partEncoder(request.format, SAMPLE_RATE, { mp3: this.mp3 });
    const speeches: Promise<Int16Array>[] = [];
    const speakUpTo = (count: number) => {
      while (speeches.length < Math.min(count, parts.length)) speeches.push(speak(parts[speeches.length]!, speeches.length));
    };
    try {
      speakUpTo(PARTS_IN_FLIGHT);
      for (let i = 0; i < parts.length; i++) {
        const samples = await speeches[i]!;
        const first = i === 0;
        const last = i === parts.length - 1;
        const kept = limitSilence(samples, SAMPLE_RATE, { startMs: first ? EDGE_MS : BETWEEN_MS.before, endMs: last ? EDGE_MS : BETWEEN_MS.after });
        // This part's encoding is asked for before the next part's speech, so it is not queued behind it.
        const encoded = encoder.encode(kept, last, stopped);
        speakUpTo(i + 1 + PARTS_IN_FLIGHT);
        yield* await encoded;
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw error;
    } finally {
      stop.abort(new SpeechEngineFailedError('the synthesis was abandoned'));
    }
  }

  /**
   * Loads the engines and lists the voices, so that the first request waits for neither (the
   * WebAssembly build: its workers started, each with its engines loaded and warmed).
   */
  async warmUp(): Promise<void> {
    await Promise.all([this.runner.warmUp?.(), this.mp3.warmUp?.(), this.voiceCatalog()]);
    // Then a text of two parts, end to end, so that this thread's part of the work is compiled too.
    for await (const chunk of this.synthesize({ text: WARM_UP_TEXT, voice: 'en-us', speed: 1, format: 'mp3' })) void chunk;
  }

  private async speak(text: string, voice: string, speed: number, signal: AbortSignal, order: number): Promise<Int16Array> {
    const wav = await this.runner.speak({ voice, wordsPerMinute: wordsPerMinute(speed), text }, signal, order);
    try {
      const audio = readWav(wav);
      if (audio.sampleRate !== SAMPLE_RATE) throw new Error(`${audio.sampleRate} Hz instead of ${SAMPLE_RATE}`);
      return monoSamples(audio);
    } catch (error) {
      throw new SpeechEngineFailedError(`eSpeak NG made an unreadable WAV file: ${(error as Error).message}`);
    }
  }

  private voiceCatalog(): Promise<EspeakVoiceCatalog> {
    this.catalog ??= (async () => {
      const [languages, variants] = await Promise.all([this.runner.listVoices('languages'), this.runner.listVoices('variants')]);
      const catalog = new EspeakVoiceCatalog(languages, variants);
      if (catalog.size === 0) throw new SpeechEngineFailedError('eSpeak NG listed no voices');
      return catalog;
    })().catch((error: unknown) => {
      this.catalog = undefined;
      throw error;
    });
    return this.catalog;
  }
}

/** eSpeak NG's output rate, whichever build. */
const SAMPLE_RATE = 22_050;

import type { AudioFormat } from '../../domain/speech.js';

export type { AudioFormat } from '../../domain/speech.js';

export interface Voice {
  /** What clients pass as `voice`. */
  id: string;
  name: string;
  /** BCP 47-like language tag, or `mul` for a voice that speaks many languages. */
  language: string;
}

export interface SpeechRequest {
  text: string;
  /** A voice id the engine knows (see `findVoice`). */
  voice: string;
  /** 0.5..2.0, 1.0 is normal speed. */
  speed: number;
  format: AudioFormat;
}

/**
 * A piece of an audio file as it is made. Without `at`, the bytes follow the ones before
 * (the pieces so far play as a stream). With `at`, they overwrite bytes already sent, at that
 * offset: what a writer does once the end is known, such as a WAV header's sizes. A stream
 * that cannot go back (an HTTP response) leaves those out; a stored file applies them.
 */
export interface AudioChunk {
  bytes: Uint8Array;
  at?: number;
}

/**
 * A speech engine. `synthesize` yields one file of the requested format, in pieces, the
 * first as soon as the engine has spoken the start of the text. Failures are thrown by the
 * iteration as SpeechEngineFailedError (VoiceNotFoundError for a voice it does not know);
 * when `signal` aborts, the iteration throws `signal.reason` and the engine stops what it can.
 */
export interface SpeechSynthesizer {
  /**
   * Names the engine and whatever else changes its output (model, version), so cached audio
   * of one engine is never served for another. Never holds a secret.
   */
  readonly engine: string;
  /** The formats it can make. */
  readonly formats: readonly AudioFormat[];
  /** The voices to offer clients. */
  voices(): Promise<Voice[]>;
  /**
   * The voice with this id, or null. Matching may be looser than the listing (case, aliases
   * such as OpenAI's voice names, or combinations the engine can make), and the voice
   * returned carries the canonical id.
   */
  findVoice(id: string): Promise<Voice | null>;
  /** The engine's own default (configured or built in); always one it can find. */
  defaultVoice(): string;
  synthesize(request: SpeechRequest, signal?: AbortSignal): AsyncIterable<AudioChunk>;
}

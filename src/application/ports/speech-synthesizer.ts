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
 * A speech engine. `synthesize` returns a complete file of the requested format. Failures
 * are thrown as SpeechEngineFailedError; when `signal` aborts, the promise rejects with
 * `signal.reason` and the engine stops what it can.
 */
export interface SpeechSynthesizer {
  /**
   * Names the engine and whatever else changes its output (model, version), so cached audio
   * of one engine is never served for another. Never holds a secret.
   */
  readonly engine: string;
  /** The voices to offer clients. */
  voices(): Promise<Voice[]>;
  /**
   * The voice with this id, or null. Matching may be looser than the listing (case, or
   * combinations the engine can make), and the voice returned carries the canonical id.
   */
  findVoice(id: string): Promise<Voice | null>;
  /** The engine's own default (configured or built in); always one it can find. */
  defaultVoice(): string;
  synthesize(request: SpeechRequest, signal?: AbortSignal): Promise<Uint8Array>;
}

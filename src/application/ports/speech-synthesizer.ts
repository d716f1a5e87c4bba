export type AudioFormat = 'wav' | 'mp3';

export interface Voice {
  id: string;
  name: string;
  language: string;
}

export interface SpeechRequest {
  text: string;
  voice: string;
  /** 0.5..2.0, 1.0 is normal speed. */
  speed: number;
  format: AudioFormat;
}

/**
 * A speech engine. Failures are thrown as SpeechEngineFailedError / SpeechEngineTimedOutError.
 */
export interface SpeechSynthesizer {
  /** Names the engine, so cached audio of one engine is never served for another. */
  readonly engine: string;
  voices(): Promise<Voice[]>;
  defaultVoice(): string;
  synthesize(request: SpeechRequest, signal?: AbortSignal): Promise<Uint8Array>;
}

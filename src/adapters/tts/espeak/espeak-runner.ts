/** What eSpeak NG is asked to say: its voice name (`-v`), words per minute (`-s`) and the text. */
export interface EspeakUtterance {
  voice: string;
  wordsPerMinute: number;
  text: string;
}

/**
 * One way of running eSpeak NG: the program installed on the machine, or its WebAssembly
 * build in worker threads. Both speak the same voices and make 22,050 Hz mono WAV.
 */
export interface EspeakRunner {
  /** Names the build, e.g. `espeak-ng 1.51 native`: part of the engine's name, so of cache keys. */
  readonly name: string;
  /**
   * The WAV file eSpeak NG made of the text (SpeechEngineFailedError when it made none). When
   * runs must wait for a turn, those of a lower `order` (a part's place in its text) go first.
   */
  speak(utterance: EspeakUtterance, signal?: AbortSignal, order?: number): Promise<Uint8Array>;
  /** The lines of `espeak-ng --voices` (`which` = 'languages') or `--voices=variant`. */
  listVoices(which: 'languages' | 'variants'): Promise<string[]>;
  /** Loads whatever the build loads before it can speak, so that the first text does not wait for it. */
  warmUp?(): Promise<void>;
}

/** Finished audio by request key; it may forget entries at any time (it is bounded). */
export interface SpeechCache {
  get(key: string): Promise<Uint8Array | null>;
  set(key: string, audio: Uint8Array): Promise<void>;
}

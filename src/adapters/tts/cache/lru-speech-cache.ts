import { LRUCache } from 'lru-cache';
import type { SpeechCache } from '../../../application/ports/speech-cache.js';

/**
 * Audio in memory, at most `maxBytes` of it; the least recently used goes first, and a file
 * larger than the whole cache is not kept. `maxBytes` 0 turns caching off.
 */
export class LruSpeechCache implements SpeechCache {
  private readonly entries: LRUCache<string, Uint8Array> | undefined;

  constructor(readonly maxBytes: number) {
    this.entries = maxBytes > 0 ? new LRUCache({ maxSize: maxBytes, sizeCalculation: (audio) => Math.max(1, audio.byteLength) }) : undefined;
  }

  /** Bytes held now. */
  get size(): number {
    return this.entries?.calculatedSize ?? 0;
  }

  async get(key: string): Promise<Uint8Array | null> {
    return this.entries?.get(key) ?? null;
  }

  async set(key: string, audio: Uint8Array): Promise<void> {
    this.entries?.set(key, audio);
  }
}

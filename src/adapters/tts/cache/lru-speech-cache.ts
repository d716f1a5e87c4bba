import { LRUCache } from 'lru-cache';
import type { SpeechCache, SpeechOwner } from '../../../application/ports/speech-cache.js';

/**
 * Audio in memory, at most `maxBytes` of it; the least recently used goes first, and a file
 * larger than the whole cache is not kept. `maxBytes` 0 turns caching off. Entries made of a
 * stored message are indexed by its user and conversation, so erasing them forgets the audio.
 */
export class LruSpeechCache implements SpeechCache {
  private readonly entries: LRUCache<string, Uint8Array> | undefined;
  /** Keys by `user:<id>` and `conversation:<id>`. */
  private readonly owned = new Map<string, Set<string>>();

  constructor(readonly maxBytes: number) {
    this.entries =
      maxBytes > 0
        ? new LRUCache({ maxSize: maxBytes, sizeCalculation: (audio) => Math.max(1, audio.byteLength), dispose: (_audio, key) => this.unindex(key) })
        : undefined;
  }

  /** Bytes held now. */
  get size(): number {
    return this.entries?.calculatedSize ?? 0;
  }

  async get(key: string): Promise<Uint8Array | null> {
    return this.entries?.get(key) ?? null;
  }

  async set(key: string, audio: Uint8Array, owner?: SpeechOwner): Promise<void> {
    if (!this.entries) return;
    this.entries.set(key, audio);
    if (owner && this.entries.has(key)) for (const tag of [`user:${owner.userId}`, ...(owner.conversationId ? [`conversation:${owner.conversationId}`] : [])]) this.index(tag, key);
  }

  async forget(whose: { userId: string } | { conversationId: string }): Promise<void> {
    const tag = 'userId' in whose ? `user:${whose.userId}` : `conversation:${whose.conversationId}`;
    for (const key of [...(this.owned.get(tag) ?? [])]) this.entries?.delete(key);
    this.owned.delete(tag);
  }

  private index(tag: string, key: string): void {
    let keys = this.owned.get(tag);
    if (!keys) this.owned.set(tag, (keys = new Set()));
    keys.add(key);
  }

  private unindex(key: string): void {
    for (const [tag, keys] of this.owned) {
      keys.delete(key);
      if (keys.size === 0) this.owned.delete(tag);
    }
  }
}

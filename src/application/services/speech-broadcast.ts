import type { AudioChunk } from '../ports/speech-synthesizer.js';

/** The finished file from its pieces: the appended ones in order, then the overwrites applied. */
export function wholeFile(chunks: readonly AudioChunk[]): Uint8Array {
  const appended = chunks.filter((chunk) => chunk.at === undefined);
  const file = new Uint8Array(appended.reduce((sum, chunk) => sum + chunk.bytes.length, 0));
  let offset = 0;
  for (const { bytes } of appended) {
    file.set(bytes, offset);
    offset += bytes.length;
  }
  for (const { bytes, at } of chunks) if (at !== undefined && at + bytes.length <= file.length) file.set(bytes, at);
  return file;
}

/**
 * One synthesis as it is made, for any number of listeners: each reads the bytes from the
 * start (those made so far at once, then the rest as they come), so a request that joins a
 * synthesis in flight gets the same audio as the one that started it. It runs to its end
 * whoever listens, so that the finished file can be cached.
 */
export class SpeechBroadcast {
  private readonly chunks: AudioChunk[] = [];
  private appendedBytes = 0;
  private state: 'running' | 'done' | 'failed' = 'running';
  private failure: unknown;
  private changed: (() => void)[] = [];
  private readonly finished: Promise<Uint8Array>;

  constructor(source: AsyncIterable<AudioChunk>) {
    this.finished = this.pump(source);
    this.finished.catch(() => {}); // a failure reaches the listeners; nobody need ask for the file
  }

  get done(): boolean {
    return this.state === 'done';
  }

  get failed(): boolean {
    return this.state === 'failed';
  }

  /** Resolves once there is audio to send, the first bytes or the whole file; rejects if it failed before any. */
  async started(): Promise<void> {
    while (this.state === 'running' && this.appendedBytes === 0) await this.change();
    if (this.state === 'failed' && this.appendedBytes === 0) throw this.failure;
  }

  /** The finished file; rejects if the synthesis fails. */
  whole(): Promise<Uint8Array> {
    return this.finished;
  }

  /** The bytes from the start, as they come (overwrites left out); throws if the synthesis fails. */
  async *bytes(): AsyncGenerator<Uint8Array> {
    let next = 0;
    for (;;) {
      while (next < this.chunks.length) {
        const chunk = this.chunks[next++]!;
        if (chunk.at === undefined && chunk.bytes.length > 0) yield chunk.bytes;
      }
      if (this.state === 'done') return;
      if (this.state === 'failed') throw this.failure;
      await this.change();
    }
  }

  private async pump(source: AsyncIterable<AudioChunk>): Promise<Uint8Array> {
    try {
      for await (const chunk of source) {
        this.chunks.push(chunk);
        if (chunk.at === undefined) this.appendedBytes += chunk.bytes.length;
        this.notify();
      }
      this.state = 'done';
      return wholeFile(this.chunks);
    } catch (error) {
      this.state = 'failed';
      this.failure = error;
      throw error;
    } finally {
      this.notify();
    }
  }

  private change(): Promise<void> {
    return new Promise((resolve) => this.changed.push(resolve));
  }

  private notify(): void {
    const waiting = this.changed;
    this.changed = [];
    for (const wake of waiting) wake();
  }
}

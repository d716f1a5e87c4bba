import { MP3_KBPS, type Mp3Encoder } from '../audio/mp3-encoder.js';
import { wasmLameFiles } from './engine-files.js';
import type { EspeakWorkerPool } from './espeak-worker-pool.js';

/** LAME compiled to WebAssembly (`wasm-media-encoders`), in the pool's worker threads. */
export class WasmLameEncoder implements Mp3Encoder {
  readonly name: string;

  constructor(private readonly pool: EspeakWorkerPool) {
    this.name = `lame wasm-media-encoders@${wasmLameFiles().version}`;
  }

  async encode(samples: Int16Array, sampleRate: number, signal?: AbortSignal, order = 0): Promise<Uint8Array> {
    // The samples' buffer moves to the worker: encode a copy, the caller may still hold them.
    return (await this.pool.mp3(samples.slice(), sampleRate, MP3_KBPS, signal, order)).output;
  }

  /** Every worker started, its engines loaded and warmed (the pool is eSpeak NG's too). */
  warmUp(): Promise<void> {
    return this.pool.warmUp();
  }
}

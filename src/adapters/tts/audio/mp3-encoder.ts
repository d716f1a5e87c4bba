import { findProgram, runProgram, type NativeProgram } from '../native-program.js';
import { sampleBytes } from './wav.js';

/** Constant bit rate of the MP3 files: plenty for a synthetic voice at 22,050 Hz. */
export const MP3_KBPS = 64;

/**
 * Encodes 16-bit mono samples as one complete MP3 stream. Streams of consecutive parts of a
 * speech may be concatenated: the result is a valid MP3 file (with a few tens of
 * milliseconds of extra silence where they join, which falls between sentences).
 */
export interface Mp3Encoder {
  /** Names the encoder and version: part of the engine's name, so of cache keys. */
  readonly name: string;
  /** When encodings must wait for a turn, those of a lower `order` (a part's place in its text) go first. */
  encode(samples: Int16Array, sampleRate: number, signal?: AbortSignal, order?: number): Promise<Uint8Array>;
  /** Loads whatever the encoder loads before it can encode, so that the first text does not wait for it. */
  warmUp?(): Promise<void>;
}

/** Debian's `lame` (or any on the PATH), when installed. */
export function findNativeLame(command = 'lame'): NativeProgram | null {
  return findProgram(command, /LAME .*?version (\S+)/);
}

/** The lame program installed on the machine, one process per call: several times faster than LAME in WebAssembly. */
export class NativeLameEncoder implements Mp3Encoder {
  readonly name: string;

  constructor(private readonly program: NativeProgram) {
    this.name = `lame ${program.version} native`;
  }

  encode(samples: Int16Array, sampleRate: number, signal?: AbortSignal): Promise<Uint8Array> {
    const raw = ['-r', '-s', String(sampleRate / 1000), '--bitwidth', '16', '--signed', '--little-endian', '-m', 'm'];
    return runProgram(this.program, ['--quiet', ...raw, '-b', String(MP3_KBPS), '-', '-'], sampleBytes(samples), signal);
  }
}

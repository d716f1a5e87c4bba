import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Mp3Encoder as Mp3EncoderType } from '@breezystack/lamejs';
import { MPEGDecoder } from 'mpg123-decoder';

// Pure-JS LAME (a test-only dependency) makes MP3 fixtures without the code under test. Its
// `require` export is a browser IIFE that exports nothing under Node, so the ES module build
// next to it is loaded with require(esm), which works however mocha loads the test.
const require = createRequire(import.meta.url);
const { Mp3Encoder } = require(join(dirname(require.resolve('@breezystack/lamejs')), 'lamejs.js')) as { Mp3Encoder: typeof Mp3EncoderType };

/** Audio checks for tests, written independently of the code under test. */

export interface WavFacts {
  audioFormat: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  dataBytes: number;
  durationS: number;
}

const ascii = (bytes: Uint8Array, at: number) => Buffer.from(bytes.subarray(at, at + 4)).toString('latin1');

const STREAMING = 0xffffffff;

/**
 * Parses a WAV file strictly: RIFF size, a PCM fmt chunk, a data chunk whose size is true.
 * With `streamed`, a file sent before its length was known may instead say 0xFFFFFFFF in
 * both sizes (as OpenAI and ffmpeg write them); its data then runs to the end.
 */
export function parseWav(bytes: Uint8Array, { streamed = false } = {}): WavFacts {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (ascii(bytes, 0) !== 'RIFF' || ascii(bytes, 8) !== 'WAVE') throw new Error('not RIFF/WAVE');
  const unknownLength = streamed && view.getUint32(4, true) === STREAMING;
  if (!unknownLength && view.getUint32(4, true) !== bytes.length - 8) throw new Error(`RIFF size ${view.getUint32(4, true)} != file size - 8 (${bytes.length - 8})`);
  let fmt: Omit<WavFacts, 'dataBytes' | 'durationS'> | undefined;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = ascii(bytes, at);
    const size = view.getUint32(at + 4, true);
    if (id === 'fmt ') {
      fmt = {
        audioFormat: view.getUint16(at + 8, true),
        channels: view.getUint16(at + 10, true),
        sampleRate: view.getUint32(at + 12, true),
        bitsPerSample: view.getUint16(at + 22, true),
      };
      const blockAlign = view.getUint16(at + 20, true);
      if (blockAlign !== (fmt.channels * fmt.bitsPerSample) / 8) throw new Error('wrong block align');
      if (view.getUint32(at + 16, true) !== fmt.sampleRate * blockAlign) throw new Error('wrong byte rate');
    } else if (id === 'data') {
      if (!fmt) throw new Error('data before fmt');
      if (unknownLength && size !== STREAMING) throw new Error(`a streamed file whose data size is ${size}, not 0xFFFFFFFF`);
      const dataBytes = unknownLength ? bytes.length - at - 8 : size;
      if (at + 8 + dataBytes !== bytes.length) throw new Error(`data size ${size} does not reach the end of the file`);
      const frame = (fmt.channels * fmt.bitsPerSample) / 8;
      if (dataBytes % frame !== 0) throw new Error(`${dataBytes} bytes of data is not a whole number of frames`);
      return { ...fmt, dataBytes, durationS: dataBytes / frame / fmt.sampleRate };
    }
    at += 8 + size + (size % 2);
  }
  throw new Error('no data chunk');
}

export interface Mp3Facts {
  sampleRate: number;
  durationS: number;
  errors: number;
}

/** Decodes an MP3 file with mpg123 (WebAssembly). */
export async function decodeMp3(bytes: Uint8Array): Promise<Mp3Facts> {
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const decoded = decoder.decode(bytes);
    return { sampleRate: decoded.sampleRate, durationS: decoded.samplesDecoded / decoded.sampleRate, errors: decoded.errors.length };
  } finally {
    decoder.free();
  }
}

/** A tone of `durationS` as 16-bit mono samples. */
export function tone(durationS: number, sampleRate: number): Int16Array {
  const samples = new Int16Array(Math.round(durationS * sampleRate));
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate));
  return samples;
}

/** A WAV file (44-byte header); `dataSize` overrides the sizes written, as streaming servers do. */
export function makeWav(durationS: number, sampleRate = 24_000, dataSize?: number): Uint8Array {
  const samples = tone(durationS, sampleRate);
  const file = Buffer.alloc(44 + samples.byteLength);
  file.write('RIFF', 0, 'latin1');
  file.writeUInt32LE(dataSize ?? 36 + samples.byteLength, 4);
  file.write('WAVEfmt ', 8, 'latin1');
  file.writeUInt32LE(16, 16);
  file.writeUInt16LE(1, 20);
  file.writeUInt16LE(1, 22);
  file.writeUInt32LE(sampleRate, 24);
  file.writeUInt32LE(sampleRate * 2, 28);
  file.writeUInt16LE(2, 32);
  file.writeUInt16LE(16, 34);
  file.write('data', 36, 'latin1');
  file.writeUInt32LE(dataSize ?? samples.byteLength, 40);
  Buffer.from(samples.buffer).copy(file, 44);
  return new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
}

/** An MP3 file of a tone, encoded with LAME. */
export function makeMp3(durationS: number, sampleRate = 24_000): Uint8Array {
  const encoder = new Mp3Encoder(1, sampleRate, 48);
  const parts = [encoder.encodeBuffer(tone(durationS, sampleRate)), encoder.flush()];
  return Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.length)));
}

/** Seconds per character the contract allows at speed 1.0. */
export const SECONDS_PER_CHARACTER = { min: 0.03, max: 0.3 } as const;

/** RIFF/WAVE files: reading any PCM WAV, writing canonical 44-byte-header ones. */

export interface WavFormat {
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
}

export interface WavAudio extends WavFormat {
  /** The sample bytes (little-endian), a whole number of frames. */
  data: Uint8Array;
}

export class WavInvalidError extends Error {
  override readonly name = 'WavInvalidError';
}

const PCM = 1;
const EXTENSIBLE = 0xfffe;
const ascii = (bytes: Uint8Array, at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));

/**
 * The fmt and data chunks of a PCM WAV file. A data size larger than what follows (streamed
 * files say 0xFFFFFFFF, or 0) is taken as "up to the end of the file".
 */
export function readWav(bytes: Uint8Array): WavAudio {
  const found = locateWavData(bytes);
  if (!found) throw new WavInvalidError(bytes.length < 12 ? 'not a RIFF/WAVE file' : 'no data chunk');
  const { format, offset, size } = found;
  const frame = format.channels * (format.bitsPerSample / 8);
  const available = Math.min(size, bytes.length - offset);
  return { ...format, data: bytes.subarray(offset, offset + available - (available % frame)) };
}

/**
 * Where the samples of a WAV file start (`offset`), the size its data chunk says, and its
 * format; null when `bytes` end before the data chunk does begin (the start of a file still
 * arriving). Throws WavInvalidError for what cannot be the start of a PCM WAV file.
 */
export function locateWavData(bytes: Uint8Array): { format: WavFormat; offset: number; size: number } | null {
  if (bytes.length < 12) {
    const riff = 'RIFF....WAVE';
    if ([...bytes].some((byte, i) => riff[i] !== '.' && byte !== riff.charCodeAt(i))) throw new WavInvalidError('not a RIFF/WAVE file');
    return null;
  }
  if (ascii(bytes, 0) !== 'RIFF' || ascii(bytes, 8) !== 'WAVE') throw new WavInvalidError('not a RIFF/WAVE file');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let format: WavFormat | undefined;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = ascii(bytes, at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16) throw new WavInvalidError('fmt chunk too short');
      if (body + 16 > bytes.length) return null;
      const tag = view.getUint16(body, true);
      if (tag !== PCM && tag !== EXTENSIBLE) throw new WavInvalidError(`not PCM (format tag ${tag})`);
      format = { channels: view.getUint16(body + 2, true), sampleRate: view.getUint32(body + 4, true), bitsPerSample: view.getUint16(body + 14, true) };
      if (format.channels < 1 || format.sampleRate < 1 || format.bitsPerSample % 8 !== 0 || format.bitsPerSample === 0) {
        throw new WavInvalidError('impossible fmt chunk');
      }
    } else if (id === 'data') {
      if (!format) throw new WavInvalidError('data chunk before fmt chunk');
      return { format, offset: body, size };
    }
    at = body + size + (size % 2);
  }
  return null;
}

/** A WAV file with a 44-byte header and correct sizes. */
export function writeWav({ channels, sampleRate, bitsPerSample, data }: WavAudio): Uint8Array {
  const file = new Uint8Array(44 + data.length);
  const view = new DataView(file.buffer);
  const text = (at: number, value: string) => file.set([...value].map((c) => c.charCodeAt(0)), at);
  const blockAlign = channels * (bitsPerSample / 8);
  text(0, 'RIFF');
  view.setUint32(4, 36 + data.length, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, PCM, true);
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * blockAlign, true);
  view.setUint16(32, blockAlign, true);
  view.setUint16(34, bitsPerSample, true);
  text(36, 'data');
  view.setUint32(40, data.length, true);
  file.set(data, 44);
  return file;
}

/** Mono 16-bit samples as a WAV file. */
export function monoWav(samples: Int16Array, sampleRate: number): Uint8Array {
  const data = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
  return writeWav({ channels: 1, sampleRate, bitsPerSample: 16, data });
}

/** The 16-bit mono samples of a WAV file (copied when the data is not 2-byte aligned). */
export function monoSamples(wav: WavAudio): Int16Array {
  if (wav.channels !== 1 || wav.bitsPerSample !== 16) {
    throw new WavInvalidError(`expected mono 16-bit audio, got ${wav.channels} channel(s) of ${wav.bitsPerSample} bits`);
  }
  const { data } = wav;
  const aligned = data.byteOffset % 2 === 0 ? data : data.slice();
  return new Int16Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 2);
}

/** The sizes a WAV header says while its length is unknown, as streaming servers (and OpenAI) write them. */
export const STREAMING_SIZE = 0xffffffff;

/** The 44-byte header of a WAV file whose length is not known yet (mono 16-bit unless told). */
export function streamingWavHeader(sampleRate: number, format: Omit<WavFormat, 'sampleRate'> = { channels: 1, bitsPerSample: 16 }): Uint8Array {
  const header = writeWav({ ...format, sampleRate, data: new Uint8Array(0) });
  const view = new DataView(header.buffer);
  view.setUint32(4, STREAMING_SIZE, true);
  view.setUint32(40, STREAMING_SIZE, true);
  return header;
}

/** The true sizes for a header from `streamingWavHeader`, once `dataBytes` of samples followed it: [offset, bytes] pairs. */
export function wavSizes(dataBytes: number): { at: number; bytes: Uint8Array }[] {
  const le32 = (value: number) => {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setUint32(0, value, true);
    return bytes;
  };
  return [
    { at: 4, bytes: le32(36 + dataBytes) },
    { at: 40, bytes: le32(dataBytes) },
  ];
}

/** The little-endian bytes of 16-bit samples (a view when the platform is little-endian, as every supported one is). */
export function sampleBytes(samples: Int16Array): Uint8Array {
  return new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
}

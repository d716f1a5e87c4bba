import type { AudioChunk, AudioFormat } from '../../../application/ports/speech-synthesizer.js';
import { PCM_SAMPLE_RATE } from '../../../domain/speech.js';
import type { Mp3Encoder } from './mp3-encoder.js';
import { Resampler } from './resample.js';
import { monoWav, sampleBytes, streamingWavHeader, wavSizes } from './wav.js';

/**
 * Turns the parts of one speech (16-bit mono samples, in order) into the pieces of one file.
 * A speech said in one part is a plain file; one said in several is a stream whose first
 * piece goes out before the rest is made.
 */
export interface PartEncoder {
  encode(samples: Int16Array, last: boolean, signal?: AbortSignal): Promise<AudioChunk[]>;
}

export interface Encoders {
  mp3: Mp3Encoder;
}

export function partEncoder(format: AudioFormat, sampleRate: number, encoders: Encoders): PartEncoder {
  switch (format) {
    case 'wav':
      return wavParts(sampleRate);
    case 'pcm':
      return pcmParts(sampleRate);
    case 'mp3': {
      let part = 0;
      return { encode: async (samples, _last, signal) => [{ bytes: await encoders.mp3.encode(samples, sampleRate, signal, part++) }] };
    }
    default:
      throw new Error(`no encoder for ${format}`);
  }
}

/** WAV: the header says "length unknown" until the last part, then gets its true sizes (overwrites). */
function wavParts(sampleRate: number): PartEncoder {
  let first = true;
  let dataBytes = 0;
  return {
    async encode(samples, last) {
      if (first && last) return [{ bytes: monoWav(samples, sampleRate) }];
      const data = sampleBytes(samples);
      const chunks: AudioChunk[] = [];
      if (first) {
        const header = streamingWavHeader(sampleRate);
        const bytes = new Uint8Array(header.length + data.length);
        bytes.set(header);
        bytes.set(data, header.length);
        chunks.push({ bytes });
      } else {
        chunks.push({ bytes: data });
      }
      first = false;
      dataBytes += data.length;
      if (last) chunks.push(...wavSizes(dataBytes));
      return chunks;
    },
  };
}

/** pcm: raw 16-bit little-endian samples at 24 kHz, as OpenAI sends them. */
function pcmParts(sampleRate: number): PartEncoder {
  const resampler = new Resampler(sampleRate, PCM_SAMPLE_RATE);
  return { encode: async (samples) => [{ bytes: sampleBytes(resampler.push(samples)) }] };
}

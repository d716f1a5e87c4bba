import type { AudioChunk, AudioFormat } from '../../../application/ports/speech-synthesizer.js';
import { looksLikeMp3 } from '../audio/mp3.js';
import { locateWavData, streamingWavHeader, wavSizes, WavInvalidError } from '../audio/wav.js';

/** Bytes read before deciding a reply is not audio of the asked format. */
const SNIFF_LIMIT = 64 * 1024;

const concat = (a: Uint8Array, b: Uint8Array) => {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
};

/**
 * A speech server's reply, passed on as it arrives once its start shows it is audio of the
 * asked format; `refuse(why)` makes the error otherwise. A WAV gets our own header, which
 * says "length unknown" while streaming and gets true sizes at the end (servers that stream
 * WAV write 0xFFFFFFFF there, which strict readers refuse).
 */
export async function* checkedAudio(format: AudioFormat, body: AsyncIterable<Uint8Array>, refuse: (why: string) => Error): AsyncGenerator<AudioChunk> {
  let start = new Uint8Array(0);
  let dataBytes = 0;
  let started = false;
  for await (const part of body) {
    if (started) {
      dataBytes += part.length;
      yield { bytes: part };
      continue;
    }
    start = concat(start, part);
    const opening = opened(format, start, refuse);
    if (opening === null) {
      if (start.length > SNIFF_LIMIT) throw refuse(`something that is not ${NAMES[format]}`);
      continue;
    }
    started = true;
    dataBytes = opening.dataBytes;
    yield { bytes: opening.bytes };
  }
  if (!started) {
    if (format !== 'wav' && start.length > 0) opened(format, start, refuse, true);
    throw refuse(format === 'wav' ? `something that is not a WAV file (${start.length < 12 ? 'not a RIFF/WAVE file' : 'no data chunk'})` : `something that is not ${NAMES[format]}`);
  }
  if (format === 'wav') {
    if (dataBytes === 0) throw refuse('a WAV file without audio');
    yield* wavSizes(dataBytes);
  }
}

const NAMES: Record<AudioFormat, string> = { wav: 'a WAV file', mp3: 'an MP3 file', pcm: 'raw audio', opus: 'an Ogg Opus file' };

/** The first bytes to pass on, once the start of the reply shows its format; null when more is needed. */
function opened(format: AudioFormat, bytes: Uint8Array, refuse: (why: string) => Error, atEnd = false): { bytes: Uint8Array; dataBytes: number } | null {
  switch (format) {
    case 'wav': {
      let found;
      try {
        found = locateWavData(bytes);
      } catch (error) {
        if (error instanceof WavInvalidError) throw refuse(`something that is not a WAV file (${error.message})`);
        throw error;
      }
      if (!found) return null;
      const data = bytes.subarray(found.offset);
      const { channels, bitsPerSample } = found.format;
      return { bytes: concat(streamingWavHeader(found.format.sampleRate, { channels, bitsPerSample }), data), dataBytes: data.length };
    }
    case 'mp3':
      if (bytes.length < 4 && !atEnd) return null;
      if (!looksLikeMp3(bytes)) throw refuse('something that is not an MP3 file');
      return { bytes, dataBytes: bytes.length };
    case 'opus':
      if (bytes.length < 4 && !atEnd) return null;
      if (String.fromCharCode(...bytes.subarray(0, 4)) !== 'OggS') throw refuse('something that is not an Ogg Opus file');
      return { bytes, dataBytes: bytes.length };
    case 'pcm':
      return { bytes, dataBytes: bytes.length };
  }
}

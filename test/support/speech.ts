import type { AudioChunk } from '../../src/application/ports/speech-synthesizer.js';
import { wholeFile } from '../../src/application/services/speech-broadcast.js';

/** Every piece a synthesis yields. */
export async function chunksOf(pieces: AsyncIterable<AudioChunk>): Promise<AudioChunk[]> {
  const chunks: AudioChunk[] = [];
  for await (const chunk of pieces) chunks.push(chunk);
  return chunks;
}

/** The finished file a synthesis makes. */
export async function fileOf(pieces: AsyncIterable<AudioChunk>): Promise<Uint8Array> {
  return wholeFile(await chunksOf(pieces));
}

/** The bytes a stream that cannot go back would carry (overwrites left out). */
export function streamedBytes(chunks: AudioChunk[]): Uint8Array {
  return wholeFile(chunks.filter((chunk) => chunk.at === undefined));
}

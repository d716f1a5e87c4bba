/**
 * Whether bytes start like an MP3 file: an ID3v2 tag, or an MPEG audio frame header
 * (11 sync bits, a known version, layer III).
 */
export function looksLikeMp3(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false;
  if (bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) return true; // "ID3"
  const [b0, b1] = [bytes[0]!, bytes[1]!];
  const sync = b0 === 0xff && (b1 & 0xe0) === 0xe0;
  const version = (b1 >> 3) & 0b11; // 01 is reserved
  const layer = (b1 >> 1) & 0b11; // 01 is layer III
  return sync && version !== 0b01 && layer === 0b01;
}

/** Lengths are counted in Unicode code points, as the contract says. */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** The first `max` code points of `text` (never splits a surrogate pair). */
export function truncateCodePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join('');
}

// Cc: C0 and C1 controls, DEL included.
const CONTROL = /\p{Cc}/u;

export function hasControlCharacters(text: string): boolean {
  return CONTROL.test(text);
}

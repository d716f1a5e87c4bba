/**
 * Lengths are counted in Unicode code points, as the contract says: UTF-16 units less one for
 * each surrogate pair (a lone surrogate counts as one, as the string iterator counts it). Read
 * by index rather than iterated: every id, text and history turn is counted on every request.
 */
export function codePointLength(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if (isHighSurrogate(text.charCodeAt(i)) && isLowSurrogate(text.charCodeAt(i + 1))) {
      count--;
      i++;
    }
  }
  return count;
}

/** Whether `text` has at most `max` code points: by its length in UTF-16 units when that already says so (a code point is one unit or two). */
export function atMostCodePoints(text: string, max: number): boolean {
  return text.length <= max || codePointLength(text) <= max;
}

/** The first `max` code points of `text` (never splits a surrogate pair). */
export function truncateCodePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  for (let points = 0; points < max && end < text.length; points++) {
    end += isHighSurrogate(text.charCodeAt(end)) && isLowSurrogate(text.charCodeAt(end + 1)) ? 2 : 1;
  }
  return text.slice(0, end);
}

/**
 * Compares by code point, as PostgreSQL's "C" collation orders UTF-8 (JavaScript's `<` compares
 * UTF-16 units, which puts U+FF01 after U+1F600). At the first unit that differs, surrogates are
 * moved above the rest of the BMP; before it, the two strings are the same.
 */
export function compareCodePoints(a: string, b: string): number {
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x >= 0xd800 && y >= 0xd800 ? codePointRank(x) - codePointRank(y) : x - y;
  }
  return a.length - b.length;
}

/** A unit from U+D800 up, placed as its code point sorts: a surrogate (a code point past U+FFFF) after U+E000..U+FFFF. */
const codePointRank = (unit: number) => (unit >= 0xe000 ? unit - 0x800 : unit + 0x2000);

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

// Cc: C0 and C1 controls, DEL included.
const CONTROL = /\p{Cc}/u;

export function hasControlCharacters(text: string): boolean {
  return CONTROL.test(text);
}

/**
 * Characters not every store can keep: PostgreSQL refuses NUL in `text` and `jsonb`, and turns
 * a lone surrogate (half of a UTF-16 pair, not a character; it has no UTF-8 form) into U+FFFD,
 * so an identical retry would no longer match what was stored. Refused everywhere instead.
 */
const UNSTORABLE_ALL = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export const UNSTORABLE_RULE = 'must not contain a NUL character (U+0000) or a lone surrogate (invalid UTF-16)';

/** `String.prototype.isWellFormed` (ES2024, in every Node this service runs on): no lone surrogate. */
export const isWellFormed = (text: string) => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

export function hasUnstorableCharacters(text: string): boolean {
  return text.includes('\0') || !isWellFormed(text);
}

/** `text` with each NUL and lone surrogate replaced by U+FFFD: for text the service did not take from a client. */
export function storableText(text: string): string {
  return hasUnstorableCharacters(text) ? text.replace(UNSTORABLE_ALL, '\uFFFD') : text;
}

/** The length of `text` in UTF-8 bytes, as TextEncoder would encode it (a lone surrogate as U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

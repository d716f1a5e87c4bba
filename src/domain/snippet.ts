/** A span of text, as code-point offsets: `start` inclusive, `end` exclusive. */
export interface Span {
  start: number;
  end: number;
}

/** The longest snippet, in code points. */
export const SNIPPET_LENGTH = 200;
/** How much text a snippet shows before its first match, when it has to start inside the text. */
const LEAD = 40;
const ELLIPSIS = '…';

/** Sorted, without overlaps (touching or overlapping spans become one). */
export function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: Span[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/** Where `needle` occurs in `text`, ignoring case, as code-point spans (not overlapping). */
export function substringSpans(text: string, needle: string): Span[] {
  const haystack = Array.from(text.toLowerCase());
  const wanted = Array.from(needle.toLowerCase());
  // Lower-casing may change a character's length (İ -> i̇): offsets are only right when it did not.
  if (wanted.length === 0 || haystack.length !== Array.from(text).length) return [];
  const spans: Span[] = [];
  for (let i = 0; i + wanted.length <= haystack.length; i++) {
    let j = 0;
    while (j < wanted.length && haystack[i + j] === wanted[j]) j++;
    if (j === wanted.length) {
      spans.push({ start: i, end: i + wanted.length });
      i += wanted.length - 1;
    }
  }
  return spans;
}

export interface Snippet {
  /** Plain text, at most SNIPPET_LENGTH code points; `…` marks text left out at either end. */
  text: string;
  /** The matches inside it, as code-point offsets into `text`. */
  highlights: Span[];
}

/**
 * The part of `text` around its best match: the window of text holding the most matches,
 * starting a little before the first of them (at a word boundary when one is near), so that
 * what matched is seen in its context. Plain text: nothing is escaped or marked up.
 */
export function snippetOf(text: string, matches: readonly Span[], max = SNIPPET_LENGTH): Snippet {
  const chars = Array.from(text);
  const spans = mergeSpans(matches).filter((s) => s.end <= chars.length);
  if (chars.length <= max) return { text, highlights: spans };
  const start = windowStart(chars, spans, max - 2);
  const lead = start > 0 ? ELLIPSIS : '';
  const room = max - lead.length - 1; // one left for a closing ellipsis
  const end = start + room >= chars.length ? chars.length : start + room;
  const body = chars.slice(start, end).join('');
  const trail = end < chars.length ? ELLIPSIS : '';
  const shift = lead.length - start;
  const highlights = spans
    .filter((s) => s.end > start && s.start < end)
    .map((s) => ({ start: Math.max(s.start, start) + shift, end: Math.min(s.end, end) + shift }));
  return { text: lead + body + trail, highlights };
}

/** Start of the window of `size` code points holding the most whole matches (the earliest such). */
function windowStart(chars: string[], spans: Span[], size: number): number {
  let best = { start: 0, count: -1 };
  for (const anchor of spans) {
    const start = Math.max(0, Math.min(anchor.start - LEAD, chars.length - size));
    const count = spans.filter((s) => s.start >= start && s.end <= start + size).length;
    if (count > best.count) best = { start, count };
  }
  return best.start === 0 ? 0 : wordBoundaryAfter(chars, best.start, spans);
}

/** `start`, moved forward past a partial word when a space is near and no match is cut by it. */
function wordBoundaryAfter(chars: string[], start: number, spans: Span[]): number {
  if (/\s/u.test(chars[start - 1] ?? ' ')) return start;
  const limit = Math.min(chars.length, start + 15, ...spans.filter((s) => s.end > start).map((s) => s.start));
  for (let i = start; i < limit; i++) {
    if (/\s/u.test(chars[i]!)) return i + 1;
  }
  return start;
}

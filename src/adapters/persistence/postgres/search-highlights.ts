import type { SearchStage } from '../../../application/ports/message-search.js';
import type { SearchQuery } from '../../../domain/search-query.js';
import { substringSpans, type Span } from '../../../domain/snippet.js';

/**
 * What matched in a result's text, from what the search statement says of it: in the words
 * stage, PostgreSQL's own headline of the whole text (`ts_headline`, HighlightAll) with each
 * matched word between two private-use characters, read back into code-point spans; in the
 * loose stage, the words pg_trgm found close to a term, found again in the text. Substrings
 * are found here. The marks are the first pair of MARKS the text does not hold itself, so a
 * user's text cannot pass for a mark; a text holding every pair gets no headline, and its words
 * are then found as substrings of the terms.
 */
export const MARKS: readonly (readonly [string, string])[] = [
  ['\uE000', '\uE001'],
  ['\uE002', '\uE003'],
];

export const headlineOptions = ([start, stop]: readonly [string, string]) => `StartSel=${start}, StopSel=${stop}, HighlightAll=true`;

/** The marks a headline of `text` is made with (as the statement chooses them), or null. */
export const marksFor = (text: string) => MARKS.find(([start, stop]) => !text.includes(start) && !text.includes(stop)) ?? null;

export interface MatchedRow {
  stage: SearchStage;
  text: string;
  headline: string | null;
  close_words: string[] | null;
}

export function matchesOf(query: SearchQuery, row: MatchedRow): Span[] {
  const terms = query.required.flat();
  if (row.stage === 'loose') {
    const close = (row.close_words ?? []).flatMap((word) => wholeWords(row.text, word));
    return [...terms.flatMap((t) => substringSpans(row.text, t.text)), ...close];
  }
  const substrings = terms.filter((t) => t.kind === 'substring').flatMap((t) => substringSpans(row.text, t.text));
  const marks = marksFor(row.text);
  const words = row.headline === null || marks === null ? null : headlineSpans(row.headline, row.text, marks);
  return [...substrings, ...(words ?? terms.filter((t) => t.kind !== 'substring').flatMap((t) => wordsAround(row.text, substringSpans(row.text, t.text))))];
}

/** The whole words the spans fall in (a stand-in for the stemmer's matches: "deploy" marks "deployed"). */
function wordsAround(text: string, spans: Span[]): Span[] {
  const chars = Array.from(text);
  return spans.map(({ start, end }) => {
    while (start > 0 && WORD_CHAR.test(chars[start - 1]!)) start--;
    while (end < chars.length && WORD_CHAR.test(chars[end]!)) end++;
    return { start, end };
  });
}

/** The marked spans of a headline, or null when it is not the text with marks added (it always should be). */
export function headlineSpans(headline: string, text: string, [startMark, stopMark]: readonly [string, string]): Span[] | null {
  const spans: Span[] = [];
  let at = 0;
  let start: number | null = null;
  let plain = '';
  for (const char of headline) {
    if (char === startMark) start = at;
    else if (char === stopMark) {
      if (start !== null && at > start) spans.push({ start, end: at });
      start = null;
    } else {
      plain += char;
      at++;
    }
  }
  return plain === text ? spans : null;
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

/** Where `word` stands as a whole word in `text` (ignoring case). */
function wholeWords(text: string, word: string): Span[] {
  const chars = Array.from(text);
  return substringSpans(text, word).filter((s) => !WORD_CHAR.test(chars[s.start - 1] ?? ' ') && !WORD_CHAR.test(chars[s.end] ?? ' '));
}

import { distance } from 'fastest-levenshtein';
import { algorithms, newStemmer } from 'snowball-stemmers';
import type { Span } from '../../../domain/snippet.js';

/**
 * Text as the in-memory store searches it, close to PostgreSQL's full-text search: words are
 * runs of letters, digits and marks (a run of Chinese is one word, as PostgreSQL's parser
 * reads it), lower-cased, stop words dropped but counted in positions, the rest stemmed by the
 * same Snowball stemmer PostgreSQL uses for the text-search configuration of that name.
 */
export interface Token {
  /** Lower-cased, as written. */
  word: string;
  /** The stem; null for a stop word. */
  lexeme: string | null;
  span: Span;
}

/** PostgreSQL's `english.stop` (Snowball's list): the only stop words the in-memory store knows. */
const ENGLISH_STOP_WORDS = new Set(
  `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its
  itself they them their theirs themselves what which who whom this that these those am is are was were be been being have
  has had having do does did doing a an the and but if or because as until while of at by for with about against between
  into through during before after above below to from up down in out on off over under again further then once here
  there when where why how all any both each few more most other some such no nor not only own same so than too very s t
  can will just don should now`.split(/\s+/u),
);

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** PostgreSQL's own text-search configurations (those of PostgreSQL 15): the names SEARCH_LANGUAGE may take in memory too. */
export const BUILT_IN_LANGUAGES = `arabic armenian basque catalan danish dutch english finnish french german greek hindi hungarian indonesian irish
  italian lithuanian nepali norwegian portuguese romanian russian serbian simple spanish swedish tamil turkish yiddish`.split(/\s+/u);

/**
 * Whether the in-memory store knows `language` (SEARCH_LANGUAGE): one of PostgreSQL's own
 * configurations (stemmed where Snowball has the language, else only lower-cased, as `simple`).
 */
export function knowsLanguage(language: string): boolean {
  return BUILT_IN_LANGUAGES.includes(language.replace(/^pg_catalog\./u, ''));
}

export class TextAnalyzer {
  private readonly stem: (word: string) => string;
  private readonly stopWords: ReadonlySet<string>;

  /** `language`: a PostgreSQL text-search configuration name; one without a Snowball stemmer (`simple`) only lower-cases. */
  constructor(language: string) {
    const name = language.replace(/^pg_catalog\./u, '');
    const stemmer = algorithms().includes(name) ? newStemmer(name) : null;
    this.stem = stemmer ? (word) => stemmer.stem(word) : (word) => word;
    this.stopWords = name === 'english' ? ENGLISH_STOP_WORDS : new Set();
  }

  /** The words of `text` in order (a word's index is its position), with code-point spans. */
  tokens(text: string): Token[] {
    const tokens: Token[] = [];
    let offset = 0; // code points before `unitIndex`
    let unitIndex = 0;
    for (const match of text.matchAll(WORD)) {
      offset += codePoints(text, unitIndex, match.index);
      const length = codePoints(match[0], 0, match[0].length);
      const word = match[0].toLowerCase();
      tokens.push({ word, lexeme: this.stopWords.has(word) ? null : this.stem(word), span: { start: offset, end: offset + length } });
      offset += length;
      unitIndex = match.index + match[0].length;
    }
    return tokens;
  }
}

function codePoints(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xd800 || code > 0xdbff || i + 1 >= to) count++;
    else if ((text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count++;
      i++;
    } else count++;
  }
  return count;
}

/**
 * How far a word may be from a query word and still count as its misspelling: one edit for
 * words of 4 to 7 code points, two from 8; shorter words must be spelled right.
 */
export function allowedEdits(word: string): number {
  const length = [...word].length;
  return length >= 8 ? 2 : length >= 4 ? 1 : 0;
}

/** 0..1: how close `word` is to `wanted` (1 for the same word), or 0 beyond the allowed edits. */
export function closeness(wanted: string, word: string): number {
  const allowed = allowedEdits(wanted);
  if (allowed === 0 || Math.abs(word.length - wanted.length) > allowed) return 0;
  const edits = editDistance(wanted, word);
  return edits <= allowed ? 1 - edits / Math.max(wanted.length, word.length) : 0;
}

/** Levenshtein's distance, but two neighbouring letters swapped (the commonest typo) count as one edit, as Damerau's does. */
function editDistance(a: string, b: string): number {
  const edits = distance(a, b);
  return edits === 2 && isOneSwap(a, b) ? 1 : edits;
}

function isOneSwap(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const differ = [...a].flatMap((char, i) => (char === b[i] ? [] : [i]));
  return differ.length === 2 && differ[1] === differ[0]! + 1 && a[differ[0]!] === b[differ[1]!] && a[differ[1]!] === b[differ[0]!];
}

/**
 * Where speech may pause: text cut into sentences, so that audio can start after the first
 * one and a streamed reply can be spoken while it is written. Every character of the text
 * lands in exactly one piece, in order (the pieces concatenate to the text): whitespace after
 * a sentence belongs to it, and text before the first word belongs to the first sentence.
 *
 * A sentence ends at `.`, `!`, `?`, `…` (and runs of them), with any closing quotes or
 * brackets, when whitespace follows and the next word does not start in lower case; at a CJK
 * full stop (`。！？`), whitespace or not; and at a line break. Not after a title or an initial
 * ("Dr. Smith", "J. R. R. Tolkien"), nor inside a number ("3.14"). A sentence longer than
 * MAX_SENTENCE is cut, preferably after a comma or the like, else at whitespace, else (text
 * without spaces) between characters.
 */

/** The longest piece, in code points: a run without punctuation is cut near this length. */
export const MAX_SENTENCE = 250;

const TERMINATORS = new Set(['.', '!', '?', '…', '‼', '⁇', '⁈', '⁉', '؟', '।', '॥']);
const WIDE_TERMINATORS = new Set(['。', '！', '？', '｡']);
const CLOSERS = new Set(['"', "'", '”', '’', '»', '›', ')', ']', '}', '」', '』', '）', '】', '〉', '》']);
const CLAUSE_ENDS = new Set([',', ';', ':', '—', '–', '，', '、', '；', '：']);
/** Words with a full stop that a name follows, not a new sentence ("Dr. Smith"). */
const TITLES = new Set('mr mrs ms mx dr prof sr jr st mt rev hon gen col capt lt sgt cpl fr sen rep gov pres vs eg ie cf al'.split(' '));
/** Words with a full stop that a number follows ("No. 5", "Fig. 3", "Oct. 12"). */
const BEFORE_NUMBERS = new Set('no nos fig figs vol ch p pp art sec eq jan feb mar apr jun jul aug sep sept oct nov dec'.split(' '));

const isSpace = (c: string | undefined) => c !== undefined && /\s/u.test(c);
const isLower = (c: string) => /\p{Ll}/u.test(c);
const isWordy = (c: string) => /[\p{L}\p{N}]/u.test(c);
/** Marks that belong to the character before them: never cut just before one. */
const isJoiner = (c: string | undefined) => c !== undefined && /[\p{M}\u200d\ufe00-\ufe0f]/u.test(c);

/**
 * The sentences of a whole text; their concatenation is the text. The empty text has none.
 */
export function splitSentences(text: string): string[] {
  const splitter = new SentenceSplitter();
  return [...splitter.push(text), ...splitter.end()];
}

/**
 * Splits a text that arrives in parts (a streamed reply): `push` gives the sentences that are
 * certainly finished, `end` the rest. Together they are exactly what `splitSentences` gives
 * for the whole text, however the text was cut into parts.
 */
export class SentenceSplitter {
  private rest: string[] = [];

  /** Adds text; returns the sentences that more text could no longer change. */
  push(text: string): string[] {
    for (const c of text) this.rest.push(c);
    return this.take(false);
  }

  /** The text is complete: the sentences left (the last one with any trailing whitespace); none when nothing is left. */
  end(): string[] {
    const pieces = this.take(true);
    if (this.rest.length > 0) pieces.push(this.rest.join(''));
    this.rest = [];
    return pieces;
  }

  private take(atEnd: boolean): string[] {
    const pieces: string[] = [];
    for (;;) {
      const end = pieceEnd(this.rest, atEnd);
      if (end === null || end >= this.rest.length) break;
      pieces.push(this.rest.slice(0, end).join(''));
      this.rest = this.rest.slice(end);
    }
    return pieces;
  }
}

/**
 * Where the piece at the start of `cs` ends (an index into `cs`), `cs.length` when it runs
 * to the end of a complete text, or null when that depends on characters not yet known.
 */
function pieceEnd(cs: string[], atEnd: boolean): number | null {
  let wordy = false;
  for (let i = 0; i < cs.length; i++) {
    if (i >= MAX_SENTENCE) return cutLongRun(cs);
    const c = cs[i]!;
    if (isWordy(c)) wordy = true;
    if (!wordy) continue;
    if (c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029') {
      const next = afterSpaces(cs, i, atEnd);
      if (next !== 'undecided') return next;
      return null;
    }
    if (WIDE_TERMINATORS.has(c) || TERMINATORS.has(c)) {
      const end = sentenceEnd(cs, i, atEnd);
      if (end === 'undecided') return null;
      if (end !== 'none') return end;
    }
  }
  return atEnd ? cs.length : null;
}

/** After whitespace starting at `i`: the index of the next non-space character, the end, or undecided. */
function afterSpaces(cs: string[], i: number, atEnd: boolean): number | 'undecided' {
  let k = i;
  while (k < cs.length && isSpace(cs[k])) k++;
  if (k < cs.length) return k;
  return atEnd ? cs.length : 'undecided';
}

/** Whether the terminator at `i` ends a sentence: where the next one starts, 'none', or 'undecided'. */
function sentenceEnd(cs: string[], i: number, atEnd: boolean): number | 'none' | 'undecided' {
  let j = i;
  let wide = false;
  while (j < cs.length && (TERMINATORS.has(cs[j]!) || WIDE_TERMINATORS.has(cs[j]!))) {
    if (WIDE_TERMINATORS.has(cs[j]!)) wide = true;
    j++;
  }
  while (j < cs.length && CLOSERS.has(cs[j]!)) j++;
  if (j >= cs.length) return atEnd ? cs.length : 'undecided';
  if (!isSpace(cs[j])) return wide ? j : 'none';
  const next = afterSpaces(cs, j, atEnd);
  if (next === 'undecided' || next === cs.length || wide) return next;
  const following = cs[next]!;
  if (isLower(following)) return 'none';
  const singleStop = cs[i] === '.' && j - i === 1 + closersCount(cs, i + 1, j);
  if (singleStop && isAbbreviation(cs, i, following)) return 'none';
  return next;
}

function closersCount(cs: string[], from: number, to: number): number {
  let n = 0;
  for (let k = from; k < to; k++) if (CLOSERS.has(cs[k]!)) n++;
  return n;
}

/** The word before the full stop at `i` is a title or an initial, or takes the number that follows. */
function isAbbreviation(cs: string[], i: number, following: string): boolean {
  let k = i;
  while (k > 0 && /[\p{L}.]/u.test(cs[k - 1]!)) k--;
  const word = cs.slice(k, i).join('');
  if (word === '') return false;
  const letters = word.replace(/\./g, '');
  if ([...letters].length === 1 && /\p{Lu}/u.test(letters)) return true; // "J." or "U.S."'s last letter
  const lower = letters.toLowerCase();
  return TITLES.has(lower) || (BEFORE_NUMBERS.has(lower) && /\p{N}/u.test(following));
}

/** A piece of MAX_SENTENCE code points without a sentence end: cut after a clause, at whitespace, or between characters. */
function cutLongRun(cs: string[]): number {
  let clause = -1;
  let space = -1;
  for (let q = 1; q <= MAX_SENTENCE; q++) {
    if (!isSpace(cs[q - 1]) || isSpace(cs[q]) || q >= cs.length) continue;
    // q starts a word after whitespace.
    space = q;
    let p = q - 1;
    while (p > 0 && isSpace(cs[p])) p--;
    if (CLAUSE_ENDS.has(cs[p]!) && q > MAX_SENTENCE / 2) clause = q;
  }
  if (clause > 0) return clause;
  if (space > 0 && cs.slice(0, space).some(isWordy)) return space;
  let q = MAX_SENTENCE;
  while (q > 1 && isJoiner(cs[q])) q--;
  return q;
}

import type { Message } from '../../../domain/message.js';
import type { SearchQuery, SearchTerm } from '../../../domain/search-query.js';
import { substringSpans, type Span } from '../../../domain/snippet.js';
import { closeness, type TextAnalyzer, type Token } from './search-text.js';

export interface Scored {
  /** Whole number: higher is more relevant. */
  rank: number;
  matches: Span[];
}

/** A term made ready for matching: its lexemes at their positions within the term, or its lower-cased text. */
interface Prepared {
  term: SearchTerm;
  /** For words and phrases: the non-stop words' lexemes with their positions in the term; empty when only stop words. */
  lexemes: { at: number; lexeme: string }[];
  lower: string;
}

interface Analysis {
  tokens: Token[];
  /** Positions of each lexeme, ascending. */
  positions: Map<string, number[]>;
  lower: string;
}

const RANK_SCALE = 1_000_000;

/** A query ready to test messages with: `byWords` (stemmed words, phrases, substrings) and `loosely` (substrings, misspellings). */
export interface CompiledQuery {
  byWords(message: Message): Scored | null;
  loosely(message: Message): Scored | null;
}

export function compileQuery(query: SearchQuery, analyzer: TextAnalyzer): CompiledQuery {
  const prepare = (term: SearchTerm): Prepared => ({
    term,
    lower: term.text.toLowerCase(),
    lexemes: term.kind === 'substring' ? [] : analyzer.tokens(term.text).flatMap((t, at) => (t.lexeme === null ? [] : [{ at, lexeme: t.lexeme }])),
  });
  const meaningful = (p: Prepared) => p.term.kind === 'substring' || p.lexemes.length > 0;
  // As PostgreSQL drops a term made only of stop words, and a group left without terms.
  const groups = query.required.map((group) => group.map(prepare).filter(meaningful)).filter((group) => group.length > 0);
  const excluded = query.excluded.map(prepare).filter(meaningful);
  const wanted = new Set(groups.flat().flatMap((p) => p.lexemes.map((l) => l.lexeme)));
  const substrings = groups.flat().filter((p) => p.term.kind === 'substring');
  const analyze = analysisOf(analyzer);

  const loose = query.required.map((group) => group.map(prepare));
  const looseExcluded = query.excluded.map(prepare);

  return {
    byWords(message) {
      if (groups.length === 0) return null;
      const text = analyze(message);
      if (!groups.every((group) => group.some((p) => matches(p, text))) || excluded.some((p) => matches(p, text))) return null;
      const matched: Span[] = text.tokens.filter((t) => t.lexeme !== null && wanted.has(t.lexeme)).map((t) => t.span);
      for (const p of substrings) matched.push(...substringSpans(message.text, p.term.text));
      const density = matched.length / (1 + Math.log(1 + text.tokens.length));
      return { rank: Math.round(RANK_SCALE * density), matches: matched };
    },
    loosely(message) {
      if (loose.length === 0) return null;
      const text = analyze(message);
      if (looseExcluded.some((p) => text.lower.includes(p.lower))) return null;
      const matched: Span[] = [];
      let total = 0;
      for (const group of loose) {
        let best = 0;
        for (const p of group) {
          const spans = substringSpans(message.text, p.term.text);
          const close = p.term.kind === 'words' ? text.tokens.filter((t) => closeness(p.lower, t.word) > 0) : [];
          matched.push(...spans, ...close.map((t) => t.span));
          const score = spans.length > 0 ? 1 : Math.max(0, ...close.map((t) => closeness(p.lower, t.word)));
          best = Math.max(best, score);
        }
        if (best === 0) return null;
        total += best;
      }
      return { rank: Math.round((RANK_SCALE * total) / loose.length), matches: matched };
    },
  };
}

function matches(p: Prepared, text: Analysis): boolean {
  if (p.term.kind === 'substring') return text.lower.includes(p.lower);
  if (p.term.kind === 'words') return p.lexemes.every((l) => text.positions.has(l.lexeme));
  // A phrase: its lexemes at the same distances from each other as in the phrase (stop words count).
  const [first, ...others] = p.lexemes;
  return (text.positions.get(first!.lexeme) ?? []).some((start) =>
    others.every((l) => includesSorted(text.positions.get(l.lexeme), start + l.at - first!.at)),
  );
}

/** Whether ascending `list` holds `value` (a binary search: a long text repeats its words thousands of times). */
function includesSorted(list: number[] | undefined, value: number): boolean {
  if (!list) return false;
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return list[low] === value;
}

/** A message's analysis, kept as long as the message object lives (a changed text is a new object). */
function analysisOf(analyzer: TextAnalyzer): (message: Message) => Analysis {
  const cache = analyses.get(analyzer) ?? new WeakMap<Message, Analysis>();
  analyses.set(analyzer, cache);
  return (message) => {
    let analysis = cache.get(message);
    if (!analysis) {
      const tokens = analyzer.tokens(message.text);
      const positions = new Map<string, number[]>();
      tokens.forEach((t, at) => {
        if (t.lexeme === null) return;
        const found = positions.get(t.lexeme);
        if (found) found.push(at);
        else positions.set(t.lexeme, [at]);
      });
      analysis = { tokens, positions, lower: message.text.toLowerCase() };
      cache.set(message, analysis);
    }
    return analysis;
  };
}

const analyses = new WeakMap<TextAnalyzer, WeakMap<Message, Analysis>>();

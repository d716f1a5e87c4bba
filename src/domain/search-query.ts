import { FieldInvalidError } from './errors.js';
import { atMostCodePoints, hasUnstorableCharacters, UNSTORABLE_RULE } from './text.js';

/** `q` of a search: 1..256 code points. */
export const MAX_QUERY_LENGTH = 256;

/**
 * How a term is looked for. `words`: by its words in their inflected forms (stemming);
 * `phrase`: those words next to each other, in order; `substring`: as written, anywhere in the
 * text, for scripts written without spaces between words (Chinese, Japanese, Thai...), where a
 * word cannot be told from the run of text around it.
 */
export type TermKind = 'words' | 'phrase' | 'substring';

export interface SearchTerm {
  /** The term as written (a phrase without its quotes). */
  text: string;
  kind: TermKind;
}

/**
 * A query in web-search syntax: every group must match, and a group matches when any of its
 * terms does (terms joined by `OR`); a message matching an excluded term is left out.
 */
export interface SearchQuery {
  required: SearchTerm[][];
  excluded: SearchTerm[];
}

/** Scripts written without spaces between words. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

export function isUnspaced(text: string): boolean {
  return UNSPACED.test(text);
}

export function assertSearchText(q: string): string {
  if (q.length === 0 || !atMostCodePoints(q, MAX_QUERY_LENGTH)) throw new FieldInvalidError('q', `must be 1 to ${MAX_QUERY_LENGTH} characters`);
  if (hasUnstorableCharacters(q)) throw new FieldInvalidError('q', UNSTORABLE_RULE);
  return q;
}

interface Token {
  text: string;
  quoted: boolean;
  negated: boolean;
}

/** Words and "quoted phrases", each maybe negated by a `-` in front; an unclosed quote runs to the end. */
function tokenize(q: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /(-?)"([^"]*)"?|(\S+)/gu;
  for (const match of q.matchAll(pattern)) {
    if (match[2] !== undefined) {
      const text = match[2].trim().replace(/\s+/gu, ' ');
      if (text !== '') tokens.push({ text, quoted: true, negated: match[1] === '-' });
      continue;
    }
    const word = match[3]!.replaceAll('"', '');
    const negated = word.startsWith('-');
    const text = negated ? word.replace(/^-+/u, '') : word;
    if (text !== '') tokens.push({ text, quoted: false, negated });
  }
  return tokens;
}

const termOf = (token: Token): SearchTerm => ({
  text: token.text,
  kind: isUnspaced(token.text) ? 'substring' : token.quoted ? 'phrase' : 'words',
});

const isOr = (token: Token) => !token.quoted && !token.negated && token.text.toUpperCase() === 'OR';

/**
 * Reads a query as web search engines do: words, `"quoted phrases"`, `-excluded` words or
 * phrases, and `OR` (in any case) between two terms, binding them more tightly than the
 * implied AND: `a b OR c d` is a AND (b OR c) AND d. An `OR` without a term on each side,
 * or next to an excluded term, is ignored.
 */
export function parseSearchQuery(q: string): SearchQuery {
  const tokens = tokenize(q);
  const required: SearchTerm[][] = [];
  const excluded: SearchTerm[] = [];
  let joinNext = false;
  tokens.forEach((token, index) => {
    if (isOr(token)) {
      const previous = tokens[index - 1];
      joinNext = previous !== undefined && !previous.negated && !isOr(previous) && required.length > 0;
      return;
    }
    if (token.negated) {
      excluded.push(termOf(token));
      joinNext = false;
      return;
    }
    if (joinNext) required.at(-1)!.push(termOf(token));
    else required.push([termOf(token)]);
    joinNext = false;
  });
  return { required, excluded };
}

/** Every term the query looks for (not the excluded ones). */
export function wantedTerms(query: SearchQuery): SearchTerm[] {
  return query.required.flat();
}

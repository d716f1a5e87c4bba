import type { SearchFilters, SearchPosition } from '../../../application/ports/message-search.js';
import type { SearchQuery, SearchTerm } from '../../../domain/search-query.js';
import { assertConfigName } from './search-indexes.js';
import { empty, join, raw, sql, type Sql } from './statements.js';

/**
 * The conditions of a search, as SQL on `m` (a row of `messages`), for the text-search
 * configuration `language` (checked to be a name before it is written into SQL: it must be a
 * constant for the statement to match the index on `to_tsvector(language, text)`).
 */

/** Conversations whose messages are never searched, as a condition on `m`: temporary ones. */
export const UNSEARCHABLE_CONVERSATIONS: Sql = sql`and not exists (select 1 from conversations c where c.conversation_id = m.conversation_id and c.temporary)`;

/** Ranks are whole numbers (relevance times a million), so a cursor compares them exactly. */
const RANK_SCALE = raw('1000000::float8');

const and = (parts: Sql[]) => (parts.length === 0 ? sql`true` : join(parts, ' and '));
const or = (parts: Sql[]) => sql`(${join(parts, ' or ')})`;

/** `text` for ILIKE: any string, found as written. */
export const likePattern = (text: string) => `%${text.replace(/[\\%_]/gu, (c) => `\\${c}`)}%`;

export class SearchConditions {
  readonly config: Sql;
  readonly vector: Sql;

  constructor(language: string) {
    this.config = raw(`'${assertConfigName(language)}'::regconfig`);
    this.vector = sql`to_tsvector(${this.config}, m.text)`;
  }

  /** PostgreSQL's reading of one term (a phrase in quotes); an empty query for stop words only. */
  private tsquery(term: SearchTerm): Sql {
    return sql`websearch_to_tsquery(${this.config}, ${term.kind === 'phrase' ? `"${term.text}"` : term.text})`;
  }

  private substring(term: SearchTerm): Sql {
    return sql`m.text ilike ${likePattern(term.text)}`;
  }

  /** The groups made only of words and phrases, as one tsquery (what the index answers), and its exclusions. */
  private wordQuery(query: SearchQuery, withExclusions: boolean): Sql | null {
    const groups = query.required.filter((group) => group.every((t) => t.kind !== 'substring'));
    const parts = groups.map((group) => sql`(${join(group.map((t) => this.tsquery(t)), ' || ')})`);
    if (withExclusions) parts.push(...query.excluded.filter((t) => t.kind !== 'substring').map((t) => sql`!! ${this.tsquery(t)}`));
    return parts.length === 0 ? null : sql`(${join(parts, ' && ')})`;
  }

  /** Stage `words`: stemmed words and phrases by the index; substrings of unspaced scripts by the trigram index. */
  words(query: SearchQuery): { where: Sql; rank: Sql } {
    const full = this.wordQuery(query, true);
    const positive = this.wordQuery(query, false);
    const mixed = query.required.filter((group) => group.some((t) => t.kind === 'substring'));
    const conditions: Sql[] = [];
    // An all-stop-word query has no lexemes: it finds nothing, unless substrings are asked for too.
    if (full) conditions.push(mixed.length > 0 ? sql`(numnode(${full}) = 0 or ${this.vector} @@ ${full})` : sql`${this.vector} @@ ${full}`);
    for (const group of mixed) {
      conditions.push(or(group.map((t) => (t.kind === 'substring' ? this.substring(t) : sql`${this.vector} @@ ${this.tsquery(t)}`))));
    }
    for (const term of query.excluded.filter((t) => t.kind === 'substring')) conditions.push(sql`not ${this.substring(term)}`);
    const rank = positive ? sql`case when numnode(${positive}) = 0 then 0 else round(${RANK_SCALE} * ts_rank_cd(${this.vector}, ${positive}, 1))::int8 end` : sql`0::int8`;
    return { where: and(conditions), rank };
  }

  /** Stage `loose`: each group by a substring of a term, or a close misspelling of a word (pg_trgm). */
  loose(query: SearchQuery): { where: Sql; rank: Sql } {
    const found = (t: SearchTerm) => (t.kind === 'words' ? or([this.substring(t), sql`${t.text} <% m.text`]) : this.substring(t));
    const score = (t: SearchTerm) =>
      t.kind === 'words' ? sql`case when ${this.substring(t)} then 1 else word_similarity(${t.text}, m.text) end` : sql`case when ${this.substring(t)} then 1 else 0 end`;
    const conditions = query.required.map((group) => or(group.map(found)));
    for (const term of query.excluded) conditions.push(sql`not ${this.substring(term)}`);
    const groupScores = query.required.map((group) => (group.length === 1 ? score(group[0]!) : sql`greatest(${join(group.map(score), ', ')})`));
    const rank = sql`round(${RANK_SCALE} * (${join(groupScores, ' + ')}) / ${raw(String(query.required.length))})::int8`;
    return { where: and(conditions), rank };
  }

  /** The words and phrases looked for, as one tsquery (no exclusions): what ranks and highlights; null when there are none. */
  positiveQuery(query: SearchQuery): Sql | null {
    return this.wordQuery(query, false);
  }
}

export function filtersOf(filters: SearchFilters): Sql {
  return join(
    [
      filters.conversationId === null ? empty : sql`and m.conversation_id = ${filters.conversationId}`,
      filters.role === null ? empty : sql`and m.role = ${filters.role}`,
      filters.from === null ? empty : sql`and m.created_at >= ${filters.from}`,
      filters.to === null ? empty : sql`and m.created_at <= ${filters.to}`,
    ],
    ' ',
  );
}

/** Keyset: the rows after `after` in the order rank, created_at, message_id (all descending). */
export function seekAfter(after: SearchPosition | null): Sql {
  return after === null ? empty : sql`where (s.rank, s.created_at, s.message_id) < (${after.rank}::int8, ${after.createdAt}, ${after.messageId})`;
}

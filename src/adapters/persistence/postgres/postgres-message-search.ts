import type { MessageSearch, SearchHit, SearchPage, SearchRequest, SearchStage } from '../../../application/ports/message-search.js';
import { conversationTitle, TITLE_FROM_MESSAGE_LENGTH } from '../../../domain/conversation.js';
import type { SearchQuery } from '../../../domain/search-query.js';
import { substringSpans } from '../../../domain/snippet.js';
import { toDate, toMessage, type MessageRow } from './rows.js';
import { filtersOf, SearchConditions, seekAfter, UNSEARCHABLE_CONVERSATIONS } from './search-conditions.js';
import { empty, raw, sql, type Sql, type Statements } from './statements.js';

type HitRow = MessageRow & { stage: SearchStage; rank: string; session_title: string | null; first_text: string | null; spans: [number, number][] };

/** Token types that are followed by their parts in ts_debug's output: they take no room of their own. */
const COMPOUND_TOKENS = raw(`('asciihword', 'hword', 'numhword', 'url')`);

/**
 * Search in PostgreSQL, one statement per page: the `messages_search_words` index (the user
 * and `to_tsvector(language, text)`, GIN) answers words and phrases, `messages_search_trigrams`
 * (the user and the text's trigrams, GIN, pg_trgm) substrings and misspellings. The loose stage
 * runs only when the words find nothing, in the same statement. What matched is found for the
 * page's rows only, with PostgreSQL's own parser and dictionaries (ts_debug).
 */
export class PostgresMessageSearch implements MessageSearch {
  private readonly conditions: SearchConditions;

  constructor(
    private readonly db: Statements,
    language: string,
  ) {
    this.conditions = new SearchConditions(language);
  }

  async search(request: SearchRequest): Promise<SearchPage> {
    const { query, limit, after } = request;
    if (query.required.length === 0) return { hits: [], next: null };
    const stage = (name: SearchStage, guard: Sql) => {
      const { where, rank } = name === 'words' ? this.conditions.words(query) : this.conditions.loose(query);
      return sql`${raw(name)} as materialized (
        select * from (
          select m.*, ${rank} as rank from messages m
          where m.user_id = ${request.userId} and m.status = 'completed' ${UNSEARCHABLE_CONVERSATIONS} ${filtersOf(request.filters)}
            and ${where} ${guard}) s
        ${seekAfter(after)}
        order by s.rank desc, s.created_at desc, s.message_id desc
        limit ${limit + 1})`;
    };
    const ctes =
      after === null
        ? sql`${stage('words', empty)}, ${stage('loose', sql`and not exists (select 1 from words)`)},
           found as (select 'words' as stage, * from words union all select 'loose' as stage, * from loose)`
        : sql`${stage(after.stage, empty)}, found as (select ${after.stage}::text as stage, * from ${raw(after.stage)})`;
    const rows = await this.db.rows<HitRow>(
      sql`/* search.messages */ with ${ctes}
       select f.*,
         (select s.title from sessions s where s.conversation_id = f.conversation_id and s.title is not null
            order by s.updated_at desc limit 1) as session_title,
         (select left(m.text, ${TITLE_FROM_MESSAGE_LENGTH}) from messages m where m.conversation_id = f.conversation_id
            order by m.created_at, m.seq limit 1) as first_text,
         ${this.spans(query)} as spans
       from found f
       order by f.rank desc, f.created_at desc, f.message_id desc`,
    );
    const page = rows.slice(0, limit);
    const hits = page.map((row): SearchHit => ({
      message: toMessage(row),
      conversationTitle: conversationTitle(row.session_title, row.first_text),
      matches: [...row.spans.map(([start, end]) => ({ start, end })), ...substringsOf(query, row.stage, row.text)],
      position: { stage: row.stage, rank: Number(row.rank), createdAt: toDate(row.created_at), messageId: row.message_id },
    }));
    return { hits, next: rows.length > limit ? hits.at(-1)!.position : null };
  }

  /**
   * The words of `f.text` that matched, as code-point spans: by lexeme in the words stage, by
   * closeness (pg_trgm: a word that merely contains the term is highlighted as a substring
   * instead) in the loose one. Substrings are added after. A token's offset
   * is the length of the tokens before it; a compound (`e-mail`) is followed by its parts.
   */
  private spans(query: SearchQuery): Sql {
    const closeWords = query.required.flat().filter((t) => t.kind === 'words').map((t) => t.text);
    return sql`(select coalesce(json_agg(json_build_array(d.start, d.start + char_length(d.token)) order by d.ord), '[]')
      from (select t.ord, t.token, t.lexemes,
              coalesce(sum(case when t.alias in ${COMPOUND_TOKENS} then 0 else char_length(t.token) end)
                over (order by t.ord rows between unbounded preceding and 1 preceding), 0) as start
            from ts_debug(${this.conditions.config}, f.text) with ordinality as t(alias, description, token, dictionaries, dictionary, lexemes, ord)) d
      where case when f.stage = 'words' then d.lexemes && ${this.conditions.wantedLexemes(query)}
                 else exists (select 1 from unnest(${closeWords}::text[]) w where w <% d.token and strpos(lower(d.token), lower(w)) = 0) end)`;
  }
}

/** Substrings that matched: those of unspaced scripts in the words stage, every term's in the loose one. */
function substringsOf(query: SearchQuery, stage: SearchStage, text: string) {
  const terms = query.required.flat().filter((t) => stage === 'loose' || t.kind === 'substring');
  return terms.flatMap((t) => substringSpans(text, t.text));
}

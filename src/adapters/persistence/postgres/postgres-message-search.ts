import type { MessageSearch, SearchHit, SearchPage, SearchRequest, SearchStage } from '../../../application/ports/message-search.js';
import { shownTitle, TITLE_SOURCE_PREFIX, type TitleSource } from '../../../domain/conversation.js';
import type { SearchQuery } from '../../../domain/search-query.js';
import { toDate, toMessage, type MessageRow } from './rows.js';
import { filtersOf, SearchConditions, seekAfter, UNSEARCHABLE_CONVERSATIONS } from './search-conditions.js';
import { headlineOptions, MARKS, matchesOf, type MatchedRow } from './search-highlights.js';
import { empty, join, raw, sql, type Sql, type Statements } from './statements.js';

type HitRow = MessageRow & MatchedRow & { rank: string; stored_title: { title: string | null; source: TitleSource | null } | null; session_title: string | null; first_text: string | null };

/**
 * Search in PostgreSQL, one statement per page: the `messages_search_words` index (the user
 * and `to_tsvector(language, text)`, GIN) answers words and phrases, `messages_search_trigrams`
 * (the user and the text's trigrams, GIN, pg_trgm) substrings and misspellings. The loose stage
 * runs only when the words find nothing, in the same statement. What matched is found for the
 * page's rows only, with PostgreSQL's own parser and dictionaries (search-highlights.ts).
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
    // Planned for its values each time: the best plan depends on the words and patterns asked for.
    const rows = await this.db.rowsPlannedForValues<HitRow>(
      sql`/* search.messages */ with ${ctes}
       select f.*,
         (select json_build_object('title', c.title, 'source', c.title_source) from conversations c where c.conversation_id = f.conversation_id) as stored_title,
         (select s.title from sessions s where s.conversation_id = f.conversation_id and s.title is not null
            order by s.updated_at desc limit 1) as session_title,
         (select left(m.text, ${TITLE_SOURCE_PREFIX}) from messages m where m.conversation_id = f.conversation_id
            order by m.created_at, m.seq limit 1) as first_text,
         ${this.highlights(query)}
       from found f
       order by f.rank desc, f.created_at desc, f.message_id desc`,
    );
    const page = rows.slice(0, limit);
    const hits = page.map((row): SearchHit => ({
      message: toMessage(row),
      conversationTitle: shownTitle(row.stored_title?.title ?? null, row.stored_title?.source ?? null, row.session_title, row.first_text).title,
      matches: matchesOf(query, row),
      position: { stage: row.stage, rank: Number(row.rank), createdAt: toDate(row.created_at), messageId: row.message_id },
    }));
    return { hits, next: rows.length > limit ? hits.at(-1)!.position : null };
  }

  /**
   * What the caller needs to find the matched words (search-highlights.ts): the headline of a
   * words-stage row, the close words of a loose-stage row.
   */
  private highlights(query: SearchQuery): Sql {
    const positive = this.conditions.positiveQuery(query);
    const terms = query.required.flat().filter((t) => t.kind === 'words').map((t) => t.text);
    const choices = MARKS.map(
      (marks) => sql`when strpos(f.text, ${marks[0]}) = 0 and strpos(f.text, ${marks[1]}) = 0 then ts_headline(${this.conditions.config}, f.text, ${positive}, ${headlineOptions(marks)})`,
    );
    const headline = positive ? sql`case when f.stage = 'words' then case ${join(choices, ' ')} end end` : sql`null::text`;
    return sql`${headline} as headline,
      case when f.stage = 'loose' then array(
        select distinct w from regexp_split_to_table(f.text, '[^[:alnum:]]+') w
        where w <> '' and exists (select 1 from unnest(${terms}::text[]) t where t <% w and strpos(lower(w), lower(t)) = 0)) end as close_words`;
  }
}

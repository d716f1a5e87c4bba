import type pg from 'pg';
import { CHINESE_WORDS, ENGLISH_WORDS } from './vocabulary.js';

/**
 * The search section's data, made inside PostgreSQL in a few statements (nothing crosses the
 * wire but the word lists). Deterministic: every choice comes from `hashint8` of a position, so
 * two runs make the same messages.
 *
 * - Sentences of 4 to 26 words (about 13 on average) drawn from the word list by Zipf's law;
 *   3% of the conversations are in Chinese, written without spaces.
 * - Conversations of 20 messages, user and assistant by turns: a user message is one or two
 *   sentences, a reply two to seven.
 * - Users own conversations unevenly, as on a real service: user n's share falls as 1/sqrt(n),
 *   so the busiest has about 1% of all messages and the median one about 70.
 */
export interface SearchData {
  messages: number;
  users: number;
}

export const MESSAGES_PER_CONVERSATION = 20;
const ENGLISH_SENTENCES = 40_000;
const CHINESE_SENTENCES = 4_000;
export const START = Date.parse('2025-01-01T00:00:00.000Z');

export const userId = (n: number) => `su-${n}`;

/** A number in [0, 1) from `x`, the same on every run. */
const unit = (x: string) => `((hashint8(${x})::int8 & 2147483647)::float8 / 2147483648)`;

export async function generateSearchData(client: pg.Client, { messages, users }: SearchData): Promise<void> {
  const conversations = Math.ceil(messages / MESSAGES_PER_CONVERSATION);
  await client.query(`create temp table words (i int primary key, w text not null)`);
  await client.query(`insert into words select i, w from unnest($1::text[]) with ordinality t(w, i)`, [ENGLISH_WORDS]);
  await client.query(`create temp table zh_words (i int primary key, w text not null)`);
  await client.query(`insert into zh_words select i, w from unnest($1::text[]) with ordinality t(w, i)`, [CHINESE_WORDS]);
  // Zipf: rank floor(exp(u * ln(V + 1))) is taken with a probability falling as 1/rank.
  const sentences = (table: string, words: string, count: number, joiner: string, end: string, salt: number) =>
    client.query(`create temp table ${table} as
      select s as id, x.t || '${end}' as t
      from generate_series(1, ${count}) s
      cross join lateral (
        select string_agg(w.w, '${joiner}' order by j) as t
        from generate_series(1, 4 + floor(22 * power(${unit(`s * 64 + ${salt}`)}, 1.5))::int) j
        join ${words} w on w.i = least((select count(*) from ${words}), floor(exp(${unit(`s * 64 + j + ${salt}`)} * ln((select count(*) from ${words}) + 1)))::int)
      ) x`);
  await sentences('en_sentences', 'words', ENGLISH_SENTENCES, ' ', '.', 1_000_000_000);
  await client.query(`update en_sentences set t = upper(left(t, 1)) || substr(t, 2)`);
  await client.query(`alter table en_sentences add primary key (id)`);
  await sentences('zh_sentences', 'zh_words', CHINESE_SENTENCES, '', '。', 2_000_000_000);
  await client.query(`alter table zh_sentences add primary key (id)`);

  await client.query(`insert into users (user_id, created_at) select 'su-' || n, to_timestamp(${START / 1000}) from generate_series(0, ${users - 1}) n`);
  await client.query(`insert into conversations (conversation_id, user_id, created_at, active_at)
    select 'sc-' || c, 'su-' || floor(${users} * power(${unit('c + 3000000000')}, 2))::int,
           to_timestamp(${START / 1000} + c * 600), to_timestamp(${START / 1000} + c * 600 + ${MESSAGES_PER_CONVERSATION} * 40)
    from generate_series(0, ${conversations - 1}) c`);
  await client.query(`insert into messages (message_id, conversation_id, user_id, role, text, created_at, metadata)
    select 'sm-' || i, 'sc-' || k.n, c.user_id, case when i % 2 = 0 then 'user' else 'assistant' end, x.t,
           to_timestamp(${START / 1000} + k.n * 600 + (i % ${MESSAGES_PER_CONVERSATION}) * 40), '{}'
    from generate_series(0, ${messages - 1}) i
    cross join lateral (select i / ${MESSAGES_PER_CONVERSATION} as n) k
    join lateral (select user_id, ${unit('k.n + 4000000000')} < 0.03 as chinese from conversations where conversation_id = 'sc-' || k.n) c(user_id, chinese) on true
    cross join lateral (
      select string_agg(coalesce(case when c.chinese then zh.t else en.t end, ''), case when c.chinese then '' else ' ' end order by p) as t
      from generate_series(1, case when i % 2 = 0 then 1 + floor(2 * ${unit('i * 8 + 5000000000')})::int
                                    else 2 + floor(8 * power(${unit('i * 8 + 6000000000')}, 1.5))::int end) p
      left join en_sentences en on not c.chinese and en.id = 1 + floor(${ENGLISH_SENTENCES} * ${unit('i * 8 + p')})::int
      left join zh_sentences zh on c.chinese and zh.id = 1 + floor(${CHINESE_SENTENCES} * ${unit('i * 8 + p')})::int
    ) x
    order by i`);
}

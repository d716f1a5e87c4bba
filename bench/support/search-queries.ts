import type pg from 'pg';
import { ENGLISH_WORDS } from './vocabulary.js';

/**
 * The search section's queries, made from the data itself so that most of them find something,
 * as real searches do: each is asked by the author of a message picked at random (so busy users
 * ask more often, as they do), about words of that message. Deterministic: the same PRNG seed
 * picks the same messages on every run.
 */
export type QueryKind = 'two words' | 'phrase' | 'misspelling' | 'Chinese substring';

export interface BenchQuery {
  kind: QueryKind;
  userId: string;
  /** What the service is asked (web-search syntax). */
  q: string;
  /** The ILIKE patterns of the baseline, all of which must match. */
  patterns: string[];
}

/** Words past the commonest (function words, stop words) are the ones people search for. */
const RANK = new Map(ENGLISH_WORDS.map((word, index) => [word, index]));
const isTopic = (word: string) => (RANK.get(word) ?? -1) >= 120;

export function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const pick = <T>(items: T[], random: () => number): T => items[Math.floor(random() * items.length)]!;

function englishQueries(userId: string, text: string, random: () => number): BenchQuery[] {
  const words = text.toLowerCase().split(/[^a-z']+/u).filter((w) => w !== '');
  const topics = [...new Set(words.filter(isTopic))];
  const queries: BenchQuery[] = [];
  if (topics.length >= 2) {
    const first = pick(topics, random);
    const second = pick(topics.filter((w) => w !== first), random);
    queries.push({ kind: 'two words', userId, q: `${first} ${second}`, patterns: [`%${first}%`, `%${second}%`] });
  }
  const pairs = words.slice(1).flatMap((w, i) => (isTopic(w) && isTopic(words[i]!) ? [`${words[i]} ${w}`] : []));
  if (pairs.length > 0) {
    const phrase = pick(pairs, random);
    queries.push({ kind: 'phrase', userId, q: `"${phrase}"`, patterns: [`%${phrase}%`] });
  }
  const long = topics.filter((w) => w.length >= 7);
  if (long.length > 0) {
    const word = pick(long, random);
    const at = Math.floor(word.length / 2);
    const typo = word.slice(0, at) + word.slice(at + 1); // one letter dropped: "deploymnt"
    if (!RANK.has(typo)) queries.push({ kind: 'misspelling', userId, q: typo, patterns: [`%${typo}%`] });
  }
  return queries;
}

function chineseQuery(userId: string, text: string, random: () => number): BenchQuery | null {
  const runs = text.split(/[^\p{Script=Han}]+/u).filter((run) => [...run].length >= 4);
  if (runs.length === 0) return null;
  const chars = [...pick(runs, random)];
  const length = 2 + Math.floor(random() * 3); // 2 to 4 characters
  const start = Math.floor(random() * (chars.length - length + 1));
  const substring = chars.slice(start, start + length).join('');
  return { kind: 'Chinese substring', userId, q: substring, patterns: [`%${substring}%`] };
}

/** `perKind` queries of each kind, from messages picked at random among `messages` (numbered as search-data.ts numbers them). */
export async function pickQueries(client: pg.Client, messages: number, perKind: number): Promise<BenchQuery[]> {
  const random = mulberry32(20_261_127);
  const byKind = new Map<QueryKind, BenchQuery[]>();
  const add = (query: BenchQuery | null) => {
    if (!query) return;
    const list = byKind.get(query.kind) ?? [];
    if (list.length < perKind) list.push(query);
    byKind.set(query.kind, list);
  };
  const full = () => (['two words', 'phrase', 'misspelling', 'Chinese substring'] as const).every((kind) => (byKind.get(kind)?.length ?? 0) >= perKind);
  for (let batch = 0; batch < 50 && !full(); batch++) {
    const ids = Array.from({ length: 2000 }, () => `sm-${Math.floor(random() * messages)}`);
    const { rows } = await client.query<{ user_id: string; text: string }>(`select user_id, text from messages where message_id = any($1) order by message_id`, [ids]);
    for (const row of rows) {
      if (/\p{Script=Han}/u.test(row.text)) add(chineseQuery(row.user_id, row.text, random));
      else for (const query of englishQueries(row.user_id, row.text, random)) add(query);
    }
  }
  return [...byKind.values()].flat();
}

/** The p-th percentile (nearest rank) of `values`. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

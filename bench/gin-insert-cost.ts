/**
 * What an insert costs PostgreSQL with the search indexes, and with other shapes of them. Run by
 * hand (half an hour at the default million messages; not a test: timings on a shared machine
 * are noisy):
 *
 *   npx tsx bench/gin-insert-cost.ts                       # GIN_MESSAGES=200000 for a quick look
 *   GIN_WRITERS=8 GIN_SYNCHRONOUS_COMMIT=on npx tsx bench/gin-insert-cost.ts   # as the service writes
 *
 * A fresh database gets the search section's data (bench/support/search-data.ts), then one table
 * of (user_id, text) per variant, each a copy of the same messages with its own indexes built
 * after the data. Each sample is GIN_WRITERS new connections sharing GIN_INSERTS single-row
 * inserts (autocommit, a prepared statement, the values sent as the service sends them, texts of
 * the data), then `gin_clean_pending_list` of the table's GIN indexes, so every row's keys reach
 * the index's tree whether its pending list overflowed during the sample or not. The figure is
 * the backends' CPU time (/proc/<pid>/stat) per insert: what the database spends, whatever else
 * the machine does meanwhile. `synchronous_commit = off` unless GIN_SYNCHRONOUS_COMMIT=on, so the
 * commit's fsync (the same for all) does not add its noise. Variants in turns, the order rotating each round, the same rows for
 * all in a round; medians and [min–max] over GIN_ROUNDS rounds, and the difference from `none`
 * taken per round. The database is dropped at the end.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import pg from 'pg';
import { migrate } from '../src/adapters/persistence/postgres/database.js';
import { createDatabase } from './support/databases.js';
import { measureOf } from './support/report.js';
import { generateSearchData } from './support/search-data.js';

const MESSAGES = Number(process.env.GIN_MESSAGES ?? 1_000_000);
const INSERTS = Number(process.env.GIN_INSERTS ?? 3000);
const ROUNDS = Number(process.env.GIN_ROUNDS ?? 11);
/** Connections inserting at once (the service has up to DATABASE_POOL_MAX, 10 by default). */
const WRITERS = Number(process.env.GIN_WRITERS ?? 1);
const SYNCHRONOUS = process.env.GIN_SYNCHRONOUS_COMMIT === 'on';
const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const WORDS = `using gin (user_id, to_tsvector('english'::regconfig, text))`;
const TRIGRAMS = `using gin (user_id, text gin_trgm_ops)`;

/** A table's extra columns and its indexes; `settings` are set on the sample's connection. */
interface Variant {
  name: string;
  columns?: string;
  indexes: string[];
  settings?: string[];
}

const VARIANTS: Variant[] = [
  { name: 'none', indexes: [] },
  { name: 'words', indexes: [WORDS] },
  { name: 'words, no user_id', indexes: [`using gin (to_tsvector('english'::regconfig, text))`] },
  { name: 'trigrams', indexes: [TRIGRAMS] },
  { name: 'trigrams, no user_id', indexes: [`using gin (text gin_trgm_ops)`] },
  { name: 'both (the migration\'s)', indexes: [WORDS, TRIGRAMS] },
  { name: 'both, work_mem 64MB', indexes: [WORDS, TRIGRAMS], settings: [`set work_mem = '64MB'`, `set maintenance_work_mem = '64MB'`] },
  { name: 'both, pending list 32MB', indexes: [WORDS, TRIGRAMS], settings: [`set gin_pending_list_limit = '32MB'`, `set work_mem = '64MB'`, `set maintenance_work_mem = '64MB'`] },
  { name: 'both, pending list 512kB', indexes: [WORDS, TRIGRAMS], settings: [`set gin_pending_list_limit = '512kB'`] },
  { name: 'both, fastupdate off', indexes: [`${WORDS} with (fastupdate = off)`, `${TRIGRAMS} with (fastupdate = off)`] },
  { name: 'trigrams as GiST', indexes: ['using gist (user_id, text gist_trgm_ops(siglen = 256))'] },
  {
    name: 'both, stored tsvector',
    columns: `, tsv tsvector generated always as (to_tsvector('english'::regconfig, text)) stored`,
    indexes: ['using gin (user_id, tsv)', TRIGRAMS],
  },
];

const table = (index: number) => `t_${index}`;
const cpuTicks = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime, in 1/100 s
};

async function prepare(client: pg.Client): Promise<void> {
  await client.query('create extension if not exists pg_trgm');
  await client.query('create extension if not exists btree_gin');
  await client.query('create extension if not exists btree_gist');
  await client.query(`drop index if exists messages_search_words, messages_search_trigrams`);
  await generateSearchData(client, { messages: MESSAGES, users: Math.max(1, Math.round(MESSAGES / 100)) });
  await client.query(`set maintenance_work_mem = '1GB'`);
  for (const [i, variant] of VARIANTS.entries()) {
    const started = performance.now();
    await client.query(`create table ${table(i)} (user_id varchar(128) collate "C" not null, text text not null ${variant.columns ?? ''})`);
    await client.query(`insert into ${table(i)} (user_id, text) select user_id, text from messages order by seq`);
    for (const index of variant.indexes) await client.query(`create index on ${table(i)} ${index}`);
    console.error(`  · ${variant.name}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  await client.query('vacuum analyze');
}

async function sample(url: string, i: number, rows: { user_id: string; text: string }[]): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`set synchronous_commit = ${SYNCHRONOUS ? 'on' : 'off'}`);
      for (const setting of VARIANTS[i]!.settings ?? []) await client.query(setting);
      return client;
    }),
  );
  try {
    const pids = await Promise.all(clients.map(async (client) => (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid));
    const first = clients[0]!;
    const gins = (await first.query<{ name: string }>(`select indexrelid::regclass::text as name from pg_index join pg_class on oid = indexrelid
      where indrelid = $1::regclass and relam = (select oid from pg_am where amname = 'gin')`, [table(i)])).rows.map((row) => row.name);
    const clean = async () => { for (const name of gins) await first.query('select gin_clean_pending_list($1::regclass)', [name]); };
    const cpu = () => pids.reduce((sum, pid) => sum + cpuTicks(pid), 0);
    await clean(); // every sample starts with empty pending lists
    const before = cpu();
    await Promise.all(
      clients.map(async (client, k) => {
        for (let n = k; n < rows.length; n += WRITERS) {
          await client.query({ name: 'insert', text: `insert into ${table(i)} (user_id, text) values ($1, $2)`, values: [rows[n]!.user_id, rows[n]!.text] });
        }
      }),
    );
    await clean();
    return ((cpu() - before) * 10_000) / rows.length;
  } finally {
    await Promise.all(clients.map((client) => client.end()));
  }
}

const load = () => `load average ${loadavg()[0]!.toFixed(2)} on ${availableParallelism()} cores`;
const summary = (values: number[]) => {
  const { median, min, max } = measureOf(values);
  return `${median.toFixed(0)} [${min.toFixed(0)}–${max.toFixed(0)}]`;
};

const database = await createDatabase(adminUrl, 'gin_insert');
try {
  console.error(`gin-insert-cost: ${MESSAGES.toLocaleString('en')} messages, ${VARIANTS.length} tables; ${load()}`);
  await migrate({ url: database.url, timeoutMs: 600_000 });
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await prepare(client);
  const ids = Array.from({ length: INSERTS * ROUNDS }, (_, n) => `sm-${(n * 7919 + 17) % MESSAGES}`);
  const { rows: texts } = await client.query<{ user_id: string; text: string }>('select user_id, text from messages where message_id = any($1)', [ids]);
  await client.end();
  const cpu = VARIANTS.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    const rows = texts.slice(round * INSERTS, (round + 1) * INSERTS);
    for (let step = 0; step < VARIANTS.length; step++) {
      const i = (round + step) % VARIANTS.length;
      cpu[i]!.push(await sample(database.url, i, rows));
    }
    console.error(`  · round ${round + 1}: ${load()}`);
  }
  console.log(`backend CPU per insert, µs: median [min–max] of ${ROUNDS} rounds of ${INSERTS} inserts by ${WRITERS} writer(s), synchronous_commit ${SYNCHRONOUS ? 'on' : 'off'}; ${load()}`);
  for (const [i, variant] of VARIANTS.entries()) {
    const added = cpu[i]!.map((value, round) => value - cpu[0]![round]!);
    console.log(`  ${variant.name.padEnd(26)} ${summary(cpu[i]!).padEnd(16)} ${i === 0 ? '' : `+${summary(added)} over none`}`);
  }
} finally {
  await database.drop();
}

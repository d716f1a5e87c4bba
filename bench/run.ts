/**
 * `npm run bench [-- section...]`: the project's performance record. Every figure is printed
 * next to a baseline measured in the same run, as a ratio, and each target is named met or
 * missed at the end. Sections (all by default):
 *
 *   storage     saveMessage, loadMessages: the service on PostgreSQL vs a hand-written server
 *   chat        POST /v1/chat and GET /v1/health: on PostgreSQL, in memory, vs bare Koa
 *   pages       one loadMessages page in conversations of 1,000 to 1,000,000 messages
 *   roundtrips  PostgreSQL round trips and statements per request, counted on the wire
 *   coldstart   process start to first answered /v1/health: the compiled service vs tsx
 *   replies     durable replies: memory with slow readers, round trips per reply, delta latency across instances
 *   responses   OpenAI's Responses API streamed against the native stream: first event, time per event
 *   speech      POST /api/tts first audio byte and total time against native espeak-ng (| lame);
 *               a fresh process's first request against its second
 *   tree        conversation trees: the newest branch page and a chat turn on a tree of 10,000, the tree migration on 1,000,000 messages
 *   manage      DELETE a conversation of 10,000 and a user of 100 × 100, and another user's loadMessages p99 meanwhile
 *   search      search over 1,000,000 messages: p50/p95 against ILIKE scans, saveMessage with and without its indexes
 *   limits      POST /v1/chat with usage limits on (never reached) against off, in memory and on
 *               PostgreSQL; round trips per chat request both ways
 *   transfer    import and export: a generated ChatGPT file of 50 and 200 MB (BENCH_IMPORT_MB) imported and exported; messages/s, peak RSS growth
 *   streams     1,000 concurrent streamed replies (BENCH_STREAMS) in memory against a minimal relay of the same model:
 *               first delta, CPU time, peak RSS per 1,000 streams
 *
 * The service is built first (`npm run build`), so the figures are of the code as it is.
 * Knobs (environment): BENCH_RUNS, BENCH_SECONDS, BENCH_WARMUP_SECONDS, BENCH_CONNECTIONS,
 * BENCH_CONVERSATIONS, BENCH_PAGE_SIZES, BENCH_PAGE_REQUESTS, BENCH_ROUNDTRIP_REQUESTS, BENCH_MIGRATION_MESSAGES, BENCH_SEARCH_MESSAGES,
 * BENCH_SEARCH_USERS, BENCH_SEARCH_QUERIES, BENCH_IMPORT_MB, BENCH_STREAMS, and
 * BENCH_DATABASE_URL (else TEST_DATABASE_URL, else the local server) for PostgreSQL.
 * docs/benchmarks.md explains each figure.
 */
import { execSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { dropAllDatabases, postgresReachable } from './support/databases.js';
import { formatSection, formatTargets, type SectionReport } from './support/report.js';
import type { BenchSection } from './support/section.js';
import { loadSettings } from './support/settings.js';

/** Every section, in the order they run by default. A new one is one more line here. */
const SECTIONS: Record<string, () => Promise<BenchSection>> = {
  storage: () => import('./sections/storage.js'),
  chat: () => import('./sections/chat.js'),
  pages: () => import('./sections/pages.js'),
  roundtrips: () => import('./sections/roundtrips.js'),
  coldstart: () => import('./sections/coldstart.js'),
  replies: () => import('./sections/replies.js'),
  live: () => import('./sections/live.js'),
  responses: () => import('./sections/responses.js'),
  speech: () => import('./sections/speech.js'),
  tree: () => import('./sections/tree.js'),
  manage: () => import('./sections/manage.js'),
  search: () => import('./sections/search.js'),
  limits: () => import('./sections/limits.js'),
  transfer: () => import('./sections/transfer.js'),
  streams: () => import('./sections/streams.js'),
};

const requested = process.argv.slice(2).filter((arg) => arg !== '--');
const unknown = requested.filter((name) => !(name in SECTIONS));
if (unknown.length > 0) {
  console.error(`unknown section ${unknown.join(', ')}; choose from: ${Object.keys(SECTIONS).join(', ')}`);
  process.exit(2);
}
const names = requested.length > 0 ? requested : Object.keys(SECTIONS);
const settings = loadSettings();
const log = (line: string) => console.error(`  · ${line}`);
/** How busy the machine was (others share it): the more, the noisier the figures. */
const machineLoad = () => `load average ${loadavg()[0]!.toFixed(2)} on ${availableParallelism()} cores`;

process.once('SIGINT', () => {
  console.error('\ninterrupted: dropping the bench databases');
  void dropAllDatabases().finally(() => process.exit(130));
});

const { runs, seconds, warmupSeconds, connections, conversations } = settings;
console.log(
  `bench: ${names.join(', ')}; load: ${connections} connections over ${conversations} conversations, ` +
    `${warmupSeconds} s warm-up, then ${runs} runs of ${seconds} s per server, interleaved; ` +
    `figures are medians [min–max]; node ${process.version}; ${machineLoad()}`,
);
const started = performance.now();
log('building the service (npm run build), so the figures are of the code as it is');
execSync('npm run build', { stdio: 'ignore' });
const reports: SectionReport[] = [];
let failed = false;
for (const name of names) {
  const section = await SECTIONS[name]!();
  if (section.needsPostgres && !(await postgresReachable(settings.adminUrl))) {
    console.log(`\n${name}: skipped, no PostgreSQL reachable (set BENCH_DATABASE_URL or TEST_DATABASE_URL)`);
    failed = true;
    continue;
  }
  const sectionStarted = performance.now();
  console.error(`\n${name}: running`);
  try {
    const rows = await section.run({ settings, log });
    const report = { name, heading: section.heading, rows };
    reports.push(report);
    console.log(`\n${formatSection(report)}`);
    log(`${name} took ${((performance.now() - sectionStarted) / 1000).toFixed(0)} s`);
  } catch (error) {
    failed = true;
    console.log(`\n${name}: FAILED: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof Error && error.stack) console.error(error.stack);
  }
}
console.log(`\n${formatTargets(reports)}`);
console.log(`(${((performance.now() - started) / 1000).toFixed(0)} s in all; ${machineLoad()} at the end)`);
process.exit(failed ? 1 : 0);

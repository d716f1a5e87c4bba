/**
 * The bench's knobs, from the environment, so a quick look and a careful measurement use the
 * same code: `BENCH_RUNS=5 BENCH_SECONDS=10 npm run bench -- storage`.
 */
function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * The least warm-up of a service under load before its first measured run where the figure is its
 * steady rate: the service's JIT takes about 7 s of load to settle, bare Koa's about 4 s
 * (docs/benchmarks.md, `chat`); after the usual 1 s its first run was measured cold.
 */
export const SERVICE_WARMUP_SECONDS = 8;

export interface BenchSettings {
  /** Measured runs per subject; the median is reported. */
  runs: number;
  /** Seconds per measured load run. */
  seconds: number;
  /** Seconds of unmeasured load per subject before its first run. */
  warmupSeconds: number;
  /** Concurrent HTTP connections of the load generator. */
  connections: number;
  /** Conversations the load is spread over (users: a quarter as many). */
  conversations: number;
  /** Sequential requests per size and order in the pages section. */
  pageRequests: number;
  /** Conversation sizes of the pages section; the first is the baseline. */
  pageSizes: number[];
  /** Sequential requests per operation in the round-trips section. */
  roundTripRequests: number;
  /** Existing messages the tree section's migration is timed on (in conversations of 100). */
  migrationMessages: number;
  /** The search section's data: messages, users, and queries of each kind per round. */
  searchMessages: number;
  searchUsers: number;
  searchQueries: number;
  /** Sizes (MB) of the generated ChatGPT files the transfer section imports and exports. */
  importSizesMb: number[];
  /** Concurrent streamed replies of the streams section. */
  streams: number;
  /** An admin connection to PostgreSQL: each server under test gets a fresh database made through it. */
  adminUrl: string;
}

export function loadSettings(): BenchSettings {
  return {
    runs: Math.round(positive('BENCH_RUNS', 3)),
    seconds: positive('BENCH_SECONDS', 4),
    warmupSeconds: positive('BENCH_WARMUP_SECONDS', 1),
    connections: Math.round(positive('BENCH_CONNECTIONS', 32)),
    conversations: Math.round(positive('BENCH_CONVERSATIONS', 200)),
    pageRequests: Math.round(positive('BENCH_PAGE_REQUESTS', 300)),
    pageSizes: (process.env.BENCH_PAGE_SIZES ?? '1000,100000,1000000').split(',').map((size) => Math.round(Number(size))),
    roundTripRequests: Math.round(positive('BENCH_ROUNDTRIP_REQUESTS', 50)),
    migrationMessages: Math.round(positive('BENCH_MIGRATION_MESSAGES', 1_000_000)),
    searchMessages: Math.round(positive('BENCH_SEARCH_MESSAGES', 1_000_000)),
    searchUsers: Math.round(positive('BENCH_SEARCH_USERS', 10_000)),
    searchQueries: Math.round(positive('BENCH_SEARCH_QUERIES', 100)),
    streams: Math.round(positive('BENCH_STREAMS', 1000)),
    importSizesMb: (process.env.BENCH_IMPORT_MB ?? '50,200').split(',').map((size) => Math.max(1, Math.round(Number(size)))),
    adminUrl: process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  };
}

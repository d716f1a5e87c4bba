import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface PoolState {
  used: number;
  free: number;
  pending: number;
  max: number;
}

/** Everything /metrics reports, on a registry of its own (one per service, so tests stay apart). */
export class Metrics {
  readonly registry = new Registry();
  private readonly on = { registers: [this.registry] };

  readonly httpRequests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by route and status', labelNames: ['method', 'route', 'status'], ...this.on });
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request (for streams: until the stream ends)',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    ...this.on,
  });
  readonly chatModelDuration = new Histogram({
    name: 'chat_model_duration_seconds',
    help: 'Language model calls: a whole reply, plain or streamed',
    labelNames: ['mode', 'outcome'],
    buckets: LATENCY_BUCKETS,
    ...this.on,
  });
  readonly speechDuration = new Histogram({
    name: 'speech_synthesis_duration_seconds',
    help: 'Speech synthesis by the engine (cache misses only)',
    labelNames: ['engine', 'format', 'outcome'],
    buckets: LATENCY_BUCKETS,
    ...this.on,
  });
  readonly conversationsSwept = new Counter({ name: 'conversations_swept_total', help: 'Expired conversations deleted, by reason (temporary, retention)', labelNames: ['reason'], ...this.on });
  readonly speechCacheLookups = new Counter({ name: 'speech_cache_lookups_total', help: 'Speech cache lookups, by hit or miss', labelNames: ['result'], ...this.on });
  readonly chatModelTokens = new Counter({
    name: 'chat_model_tokens_total',
    help: "Language model tokens, by the model that answered (as it names itself) and type (input, output): its own count, else an estimate",
    labelNames: ['model', 'type'],
    ...this.on,
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Reports the database connection pool, read when /metrics is scraped. */
  watchDatabasePool(read: () => PoolState | null): void {
    const gauge = new Gauge({
      name: 'database_pool_connections',
      help: 'Database connection pool: used, free, pending acquisitions, and the maximum',
      labelNames: ['state'],
      ...this.on,
      collect() {
        const state = read();
        if (!state) return;
        for (const [name, value] of Object.entries(state)) gauge.set({ state: name }, value);
      },
    });
  }
}

/** How long `run` took, in seconds, with its outcome. */
export async function timed<T>(histogram: Histogram<string>, labels: Record<string, string>, run: () => Promise<T>): Promise<T> {
  const stop = histogram.startTimer(labels);
  try {
    const result = await run();
    stop({ outcome: 'ok' });
    return result;
  } catch (error) {
    stop({ outcome: 'error' });
    throw error;
  }
}

import type { Middleware } from 'koa';
import type { Metrics } from '../../metrics/metrics.js';

/**
 * Counts and times every request by its route pattern (never the raw path, which holds ids).
 * The series of each method, route and status is looked up once and kept: the labels are few
 * (Node's methods, the router's patterns, the statuses) and hashing them per request is most
 * of what a metric costs.
 */
export function requestMetrics(metrics: Metrics): Middleware {
  const series = new Map<string, { requests: { inc(): void }; duration: { observe(seconds: number): void } }>();
  const seriesOf = (method: string, route: string, status: string) => {
    const key = `${method} ${route} ${status}`;
    let found = series.get(key);
    if (!found) {
      const labels = { method, route, status };
      found = { requests: metrics.httpRequests.labels(labels), duration: metrics.httpDuration.labels(labels) };
      series.set(key, found);
    }
    return found;
  };
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const record = () => {
        const { requests, duration } = seriesOf(ctx.method, (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched', String(ctx.status));
        requests.inc();
        duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
      };
      // Streams answer after the middleware returns: count them when the response ends.
      if (ctx.respond === false && !ctx.res.writableFinished) ctx.res.once('close', record);
      else record();
    }
  };
}

import type { Middleware } from 'koa';
import type { Metrics } from '../../metrics/metrics.js';

/** Counts and times every request by its route pattern (never the raw path, which holds ids). */
export function requestMetrics(metrics: Metrics): Middleware {
  return async (ctx, next) => {
    const stop = metrics.httpDuration.startTimer();
    try {
      await next();
    } finally {
      const record = () => {
        const labels = { method: ctx.method, route: (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched', status: String(ctx.status) };
        metrics.httpRequests.inc(labels);
        stop(labels);
      };
      // Streams answer after the middleware returns: count them when the response ends.
      if (ctx.respond === false && !ctx.res.writableFinished) ctx.res.once('close', record);
      else record();
    }
  };
}

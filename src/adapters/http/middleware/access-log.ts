import type { Middleware } from 'koa';
import type { Logger } from 'pino';

/**
 * One line per request: the client's address (through trusted proxies: clientOrigin), HTTP
 * version, method, path (never the query, which may hold text), status, duration.
 */
export function accessLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    if (!logger.isLevelEnabled('info')) return next(); // LOG_LEVEL above info: no line to make
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        {
          requestId: ctx.state.requestId,
          client: ctx.state.client?.address,
          http: ctx.req.httpVersion,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          durationMs: Math.round(durationMs * 10) / 10,
        },
        'request',
      );
    }
  };
}

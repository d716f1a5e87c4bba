import type { Middleware } from 'koa';
import type { Logger } from 'pino';

/**
 * One line per request: the client's address (through trusted proxies: clientOrigin), HTTP
 * version, method, path (never the query, which may hold text; a route whose path names a user,
 * such as the erasure of one, as its pattern), status, duration.
 */
export function accessLog(logger: Logger): Middleware {
  const logged: Middleware = async (ctx, next) => {
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
          path: pathOf(ctx),
          status: ctx.status,
          durationMs: Math.round(durationMs * 10) / 10,
        },
        'request',
      );
    }
  };
  // LOG_LEVEL above info: no line to make, and no async frame of this middleware's.
  return (ctx, next) => (logger.isLevelEnabled('info') ? logged(ctx, next) : next());
}

/** Paths that name a user, routed or not (a wrong method, a malformed path: refused before any route matched). */
const USER_PATH = /^\/api\/users\/[^/]*/;

/** The path, or the route's pattern when the path names a user (their id stays out of the log, an erased user's included). */
function pathOf(ctx: { path: string; _matchedRoute?: string | RegExp }): string {
  const route = ctx._matchedRoute;
  if (typeof route === 'string' && route.includes(':user_id')) return route;
  return ctx.path.replace(USER_PATH, '/api/users/:user_id');
}

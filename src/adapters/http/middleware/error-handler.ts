import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { errorBody, mapError } from '../error-mapping.js';

/**
 * The one place errors become responses: JSON error bodies for everything thrown, and for
 * requests no route answered (404, 405 with Allow, 501). Unexpected faults are logged with
 * their stack; the client sees a generic detail.
 */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body == null && ctx.status >= 400) {
        const status = ctx.status;
        const detail =
          ctx.status === 404
            ? `no endpoint at ${ctx.path}`
            : ctx.status === 405
              ? `method ${ctx.method} not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}`
              : `method ${ctx.method} not implemented`;
        ctx.body = errorBody(detail);
        ctx.status = status; // Koa turns an unset 404 into 200 when a body is assigned
      }
    } catch (error) {
      const mapped = mapError(error);
      if (mapped.unexpected) logUnexpected(logger, ctx, error);
      if (ctx.headerSent || !ctx.writable) return;
      ctx.status = mapped.status;
      ctx.body = mapped.body;
    }
  };
}

/** An unexpected fault, with its stack, for the operator (the client sees a generic detail). */
export function logUnexpected(logger: Logger, ctx: Context, error: unknown): void {
  logger.error({ err: error, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'unexpected fault');
}

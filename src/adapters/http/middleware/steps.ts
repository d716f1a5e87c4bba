import type { Context, Middleware } from 'koa';

/**
 * Work every request needs before the routes, that cannot fail and has nothing to do after
 * them (who the client is, the request id, the security headers): a plain function of the
 * context, so several run in one middleware rather than one async frame each.
 */
export type RequestStep = (ctx: Context) => void;

/** One middleware running the steps in order, then the rest of the chain. */
export function runFirst(...steps: RequestStep[]): Middleware {
  return (ctx, next) => {
    for (const step of steps) step(ctx);
    return next();
  };
}

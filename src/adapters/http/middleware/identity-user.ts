import type { Context, Middleware } from 'koa';
import { isValidClientId } from '../../../domain/ids.js';
import { HttpProblem } from '../error-mapping.js';

/**
 * With identity on, the user is the authenticated one: a request's `user_id` (in the query or
 * a JSON body) may be left out and is then filled in before validation, so every route and
 * schema goes on reading `user_id` as before; one naming another user is 403. A `user_id` that
 * is no valid id (empty, too long, not a string, repeated in the query) is left for the schema
 * to refuse with its usual 400. An API key allowed to act for any user
 * has no user of its own: the request names it, as without identity.
 *
 * A route takes part by reading its user from `user_id` in the query or in a JSON body parsed by
 * the shared `json` middleware; nothing else is needed.
 */

const forbidden = () => new HttpProblem(403, "user_id: names another user than the one authenticated (leave it out, or send the token's own)");

type Decision = 'fill' | 'keep';

function decide(given: unknown, userId: string): Decision {
  if (given === undefined || given === null) return 'fill';
  if (isValidClientId(given) && given !== userId) throw forbidden();
  return 'keep';
}

/** The query's user_id, checked against the identity or filled in. */
export function bindQueryUser(ctx: Context): void {
  const userId = ctx.state.identity?.userId;
  if (userId == null) return;
  if (decide(ctx.query.user_id, userId) === 'fill') ctx.query = { ...ctx.query, user_id: userId };
}

/** A JSON body's user_id, checked against the identity or filled in. */
export function bindBodyUser(ctx: Context): void {
  const userId = ctx.state.identity?.userId;
  const body = ctx.request.body;
  if (userId == null || typeof body !== 'object' || body === null || Array.isArray(body)) return;
  if (decide((body as Record<string, unknown>).user_id, userId) === 'fill') ctx.request.body = { ...body, user_id: userId };
}

/** `parse` (the JSON body middleware), then the body's user bound to the identity. */
export function withBodyUser(parse: Middleware): Middleware {
  return (ctx, next) =>
    parse(ctx, async () => {
      bindBodyUser(ctx);
      await next();
    });
}

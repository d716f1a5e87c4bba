import type Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { Logger } from 'pino';
import type { Admission, UsageLimits } from '../../../application/usage/usage-limits.js';
import { isValidClientId } from '../../../domain/ids.js';
import { NO_USER } from '../../../domain/usage.js';
import { answerInOpenAiShape, openAiFailure } from '../openai-path-errors.js';
import { setLimitHeaders } from '../rate-limit-headers.js';

export interface LimitedRoute {
  method: 'GET' | 'POST';
  /** The pattern the route is registered with. */
  path: string;
  /** Where a request names its user (with identity on, the token's subject comes first). */
  user: 'body' | 'query' | 'bearer';
  /** The route asks the language model: the token limit applies, and a request without a user is the route's 400. */
  model: boolean;
  /** The route answers errors in OpenAI's shape. */
  openAi?: boolean;
}

/**
 * The one list of the endpoints whose requests are counted and limited (LIMIT_REQUESTS_PER_MINUTE,
 * LIMIT_TOKENS_PER_DAY, LIMITS_FILE): the chat, response and speech endpoints. A route added to
 * chat (or a new model endpoint) is covered by naming it here (the OpenAPI document's 429 and
 * headers follow: openapi-usage.ts). POST /v1/responses takes its user as its route does
 * (openai-user.ts) and answers in OpenAI's shape.
 */
export const LIMITED_ROUTES: readonly LimitedRoute[] = [
  { method: 'POST', path: '/v1/chat', user: 'body', model: true },
  { method: 'POST', path: '/v1/chat/stream', user: 'body', model: true },
  { method: 'POST', path: '/v1/responses', user: 'bearer', model: true, openAi: true },
  { method: 'GET', path: '/api/tts', user: 'query', model: false },
  { method: 'POST', path: '/api/tts', user: 'body', model: false },
  { method: 'POST', path: '/v1/audio/speech', user: 'body', model: false, openAi: true },
];

/**
 * Counts each request of a limited route for its user and, with limits on, refuses one over a
 * limit (429, Retry-After, the RateLimit headers: rate-limit-headers.ts); every answer of a limited
 * route then carries the headers. Runs after identity and before the routes. A body route's JSON
 * is parsed here with the routes' own parser (`json`, which the route then finds done), so its
 * errors are the route's. A request the client got wrong (a 4xx) is given back: it counts nothing.
 */
export function usageLimits(gate: UsageLimits, router: Router, json: Middleware, logger: Logger): Middleware {
  let layers: LimitedLayer[] | undefined;
  const openAi = openAiShape(logger);
  return (ctx, next) => {
    layers ??= limitedLayers(router);
    const route = limitedRoute(ctx, layers);
    if (!route) return next();
    const admitted = (userId: string | null) => (userId === null ? next() : admit(ctx, next, gate, userId, route.model));
    const run = () => (route.user === 'body' ? json(ctx, () => admitted(userOf(ctx, route))) : admitted(userOf(ctx, route)));
    return route.openAi ? openAi(ctx, run) : run();
  };
}

async function admit(ctx: Context, next: Next, gate: UsageLimits, userId: string, usesModel: boolean): Promise<void> {
  const admitted = gate.admit(userId, usesModel);
  const admission: Admission = admitted instanceof Promise ? await admitted : admitted;
  setLimitHeaders(ctx, admission);
  if (admission.refused) throw admission.refused;
  try {
    await next();
  } catch (error) {
    // The full mapping (openai-path-errors.ts knows the Responses API's own errors too).
    if (isClientError(openAiFailure(error).status)) gate.refund(admission);
    throw error;
  }
  if (isClientError(ctx.status)) gate.refund(admission);
}

const isClientError = (status: number) => status >= 400 && status < 500;

/** Errors raised here or after (a 429, the body's 400) in OpenAI's shape, as OpenAI's paths answer them. */
function openAiShape(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      answerInOpenAiShape(ctx, error, logger);
    }
  };
}

/** A router layer that answers a limited route. */
interface LimitedLayer {
  layer: Router['stack'][number];
  route: LimitedRoute;
}

/** The router's layers of the limited routes, found once: a request is then matched against these few, not every route. */
function limitedLayers(router: Router): LimitedLayer[] {
  return router.stack.flatMap((layer) =>
    LIMITED_ROUTES.filter((route) => String(layer.path) === route.path && layer.methods.includes(route.method)).map((route) => ({ layer, route })),
  );
}

/** The limited route that will answer, if any: one whose layer matches the path and the method (HEAD asks a GET route). */
function limitedRoute(ctx: Context, layers: LimitedLayer[]): LimitedRoute | undefined {
  if (ctx.method !== 'GET' && ctx.method !== 'POST' && ctx.method !== 'HEAD') return undefined;
  const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
  for (const { layer, route } of layers) {
    if (route.method === method && layer.methods.includes(ctx.method) && layer.match(ctx.path)) return route;
  }
  return undefined;
}

/**
 * Whom the request counts for: the authenticated user; else the one the request names (speech
 * without one: no user). On OpenAI's paths as their routes read it (openai-user.ts): identity's
 * user, or with an API key for any user the query's `user_id`; without identity, the bearer value.
 * Null: leave the request to its route, which refuses it (a missing or malformed user, no
 * credential) and so counts nothing.
 */
function userOf(ctx: Context, route: LimitedRoute): string | null {
  const identity = ctx.state.identity;
  if (route.user === 'bearer') {
    if (identity) return identity.userId ?? valid(ctx.query.user_id);
    return valid(BEARER.exec(ctx.get('Authorization').trim())?.[1]?.trim());
  }
  if (identity?.userId != null) return identity.userId;
  const given = route.user === 'query' ? ctx.query.user_id : (ctx.request.body as { user_id?: unknown } | undefined)?.user_id;
  return valid(given) ?? (route.model ? null : NO_USER);
}

const BEARER = /^bearer[ ]+(.+)$/i;
const valid = (value: unknown): string | null => (isValidClientId(value) ? value : null);

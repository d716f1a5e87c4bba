import cors from '@koa/cors';
import type { Middleware } from 'koa';

/**
 * CORS for the listed origins only; with none listed, no CORS headers at all (closed). A listed
 * origin may use every method the API has (PATCH renames, pins and archives) and send any
 * request header its preflight names (Last-Event-ID to resume a reply; the OpenAI SDKs' own
 * `x-stainless-*` headers): the origin is what is trusted, not a list of headers. Responses
 * expose what a client reads: the request id, caching, and the limits' headers.
 */
export function corsFor(origins: string[]): Middleware {
  const allowed = new Set(origins);
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      return allowed.has('*') || allowed.has(origin) ? origin : '';
    },
    allowMethods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    // No allowHeaders: @koa/cors answers a preflight with the headers it asks for.
    exposeHeaders: [
      'X-Request-Id',
      'ETag',
      'Content-Length',
      'Retry-After',
      'WWW-Authenticate',
      'X-Vercel-AI-UI-Message-Stream',
      'RateLimit',
      'RateLimit-Policy',
      ...['limit', 'remaining', 'reset'].flatMap((what) => [`x-ratelimit-${what}-requests`, `x-ratelimit-${what}-tokens`]),
    ],
    maxAge: 600,
    keepHeadersOnError: true,
  });
}

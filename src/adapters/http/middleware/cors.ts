import cors from '@koa/cors';
import type { Middleware } from 'koa';

/** CORS for the listed origins only; with none listed, no CORS headers at all (closed). */
export function corsFor(origins: string[]): Middleware {
  const allowed = new Set(origins);
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      return allowed.has('*') || allowed.has(origin) ? origin : '';
    },
    allowMethods: ['GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'],
    allowHeaders: ['Content-Type', 'Authorization', 'X-Request-Id', 'X-Stream-Protocol', 'If-None-Match', 'Accept'],
    exposeHeaders: ['X-Request-Id', 'ETag', 'Content-Length', 'Retry-After', 'WWW-Authenticate', 'X-Vercel-AI-UI-Message-Stream'],
    maxAge: 600,
    keepHeadersOnError: true,
  });
}

import type { Middleware } from 'koa';

/** Headers every response carries; pages that need more (the docs, the demo) set their own CSP. */
const HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
};

export function securityHeaders(): Middleware {
  return async (ctx, next) => {
    ctx.set(HEADERS);
    await next();
  };
}

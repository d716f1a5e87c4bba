import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { HttpProblem } from '../error-mapping.js';

/** RFC 6750 §2.1: `Authorization: Bearer <token68>` (the scheme in any case). */
const BEARER = /^bearer(?:[ ]+(.*))?$/i;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

export type PresentedCredential = { kind: 'none' } | { kind: 'malformed' } | { kind: 'token'; token: string };

/**
 * The bearer credential a request carries. No Authorization header, or another scheme (Basic,
 * say), is no credential at all: RFC 6750 §3 says such a request gets no error code.
 */
export function presentedCredential(ctx: Context): PresentedCredential {
  const match = BEARER.exec(ctx.get('Authorization').trim());
  if (!match) return { kind: 'none' };
  const token = (match[1] ?? '').trim();
  return TOKEN68.test(token) ? { kind: 'token', token } : { kind: 'malformed' };
}

/**
 * The 401 of a request without a usable credential: `WWW-Authenticate: Bearer`, plus
 * `error="invalid_token"` and a fixed description when one was sent (which must hold no `"` or
 * `\`, RFC 6750 §3), and the JSON error body. Thrown, so the one error handler answers it.
 */
export function unauthorized(ctx: Context, description?: string): HttpProblem {
  ctx.set('WWW-Authenticate', description === undefined ? 'Bearer' : `Bearer error="invalid_token", error_description="${description}"`);
  return new HttpProblem(401, description === undefined ? 'authentication required: send Authorization: Bearer <token>' : `invalid token: ${description}`);
}

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Requires one fixed bearer token (METRICS_TOKEN on GET /metrics), compared in constant time:
 * both sides are hashed first, so not even the token's length shows in the timing.
 */
export function fixedBearerToken(expected: string) {
  const wanted = sha256(expected);
  return async (ctx: Context, next: () => Promise<unknown>) => {
    const presented = presentedCredential(ctx);
    if (presented.kind === 'none') throw unauthorized(ctx);
    if (presented.kind === 'malformed' || !timingSafeEqual(sha256(presented.token), wanted)) throw unauthorized(ctx, 'the token is not accepted');
    await next();
  };
}

import { bodyParser } from '@koa/bodyparser';
import { isUtf8 } from 'node:buffer';
import type { Context, Middleware } from 'koa';
import { HttpProblem } from '../error-mapping.js';

export const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * A request with a body (a declared length, or chunked) that says it is none of `types`: 415 with
 * `detail`. A request without a body is never refused.
 */
export function requireBodyType(ctx: Context, types: string[], detail: string): void {
  const hasBody = Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';
  // ctx.is() is false when the body is of another type, or has none at all.
  if (hasBody && ctx.is(types) === false) throw new HttpProblem(415, detail);
}

/**
 * For routes that take JSON: a non-empty body must say it is JSON (else 415) and stay under
 * the limit (else 413); a request without a body is never 415. A body already read by it
 * passes straight on.
 */
export function jsonBody(limitBytes: number): Middleware {
  const parse = bodyParser({
    enableTypes: ['json'],
    extendTypes: { json: JSON_TYPES },
    parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
    jsonLimit: limitBytes,
    jsonStrict: false,
  });
  const read: Middleware = async (ctx, next) => {
    const declaredLength = Number(ctx.get('Content-Length') || 0);
    if (declaredLength > limitBytes) throw tooLarge(limitBytes);
    requireBodyType(ctx, JSON_TYPES, 'Content-Type must be application/json');
    // The body's bytes as they come (the parser reads them too, and decodes invalid UTF-8 as U+FFFD
    // without a word): kept only to tell a U+FFFD sent from one made of bytes that are no UTF-8.
    const parsing = parse(ctx, async () => {});
    const chunks: Buffer[] = [];
    const identity = (ctx.get('Content-Encoding') || 'identity').toLowerCase() === 'identity';
    const keep = (chunk: Buffer) => void chunks.push(chunk);
    if (identity) ctx.req.on('data', keep);
    try {
      await parsing;
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status === 413) throw tooLarge(limitBytes);
      // The parser refuses prototype-poisoning keys; say so rather than "malformed".
      if (/forbidden prototype property/.test(String((error as Error).message))) {
        throw new HttpProblem(400, 'body: keys named "__proto__" are not allowed');
      }
      if (status !== undefined && status >= 400 && status < 500) throw error;
      // Anything else reading the body went wrong with the body itself (a corrupt gzip stream, say).
      throw new HttpProblem(400, 'body: could not be read (corrupt or mislabelled content encoding)');
    } finally {
      ctx.req.off('data', keep);
    }
    if (identity && ctx.request.rawBody?.includes('\uFFFD') && !isUtf8(Buffer.concat(chunks))) {
      throw new HttpProblem(400, 'body: is not valid UTF-8');
    }
    // No body at all reads as an empty object, so the schema can name the missing fields.
    if (!ctx.request.rawBody) ctx.request.body = {};
    await next();
  };
  // A body read already (a limited route's is read first, by usage-limits.ts) is the parser's own test: `request.body` is set.
  return (ctx, next) => (ctx.request.body !== undefined ? next() : read(ctx, next));
}

function tooLarge(limitBytes: number): HttpProblem {
  return new HttpProblem(413, `body: larger than the limit of ${limitBytes} bytes`);
}

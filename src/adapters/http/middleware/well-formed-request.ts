import type { Middleware } from 'koa';
import { HttpProblem } from '../error-mapping.js';
import { RequestValidationError } from '../validate.js';

const API_PATH = /^\/(v1|api)(\/|$)/;
const RULE = 'malformed percent-encoding: each % must begin a valid UTF-8 sequence, such as %C3%A9';

/**
 * What Node and Koa let through but a client must not be answered for as if it were right:
 * - An HTTP/1.1 request without `Host` (RFC 9112 §3.2): 400. Node's own refusal of it is an empty
 *   answer, so the listeners leave it to this check (requireHostHeader: false in http1Bounds).
 * - Percent-encoding that decodes to no text, in the path or the query of an API path: 400 naming
 *   `path` or `query`. Koa reads queries with `querystring`, which decodes leniently (`%E0%A4%A`
 *   or an encoded lone surrogate, `%ED%A0%80`, silently become U+FFFD), and the router keeps a
 *   path segment it cannot decode as it is (`%FF` taken as an id): either way a client's mistake
 *   would be acted on as different text.
 */
export function wellFormedRequest(): Middleware {
  // Not async: it has nothing to do after the routes, so it adds no frame of its own (koa-compose turns the throw into a rejection).
  return (ctx, next) => {
    const { req } = ctx;
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
      throw new HttpProblem(400, 'Host: an HTTP/1.1 request must carry a Host header');
    }
    const { path } = ctx;
    if (API_PATH.test(path)) {
      if (path.includes('%') && !decodes(path)) throw new RequestValidationError([{ field: 'path', message: RULE }]);
      const query = ctx.querystring;
      if (query.includes('%') && !decodes(query)) throw new RequestValidationError([{ field: 'query', message: RULE }]);
    }
    return next();
  };
}

/** `&`, `=` and `/` decode to themselves, so decoding the whole fails exactly when one of its parts would. */
function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

import type { Middleware } from 'koa';
import { RequestValidationError } from '../validate.js';

const API_PATH = /^\/(v1|api)(\/|$)/;
const RULE = 'malformed percent-encoding: each % must begin a valid UTF-8 sequence, such as %C3%A9';

/**
 * Koa reads queries with `querystring`, which decodes leniently: `%E0%A4%A` or an encoded lone
 * surrogate (`%ED%A0%80`) silently become U+FFFD, so a client's mistake would be acted on as
 * different text. On API paths such a query is refused with 400 naming `query` instead.
 */
export function wellFormedQuery(): Middleware {
  // Not async: it has nothing to do after the routes, so it adds no frame of its own (koa-compose turns the throw into a rejection).
  return (ctx, next) => {
    const query = ctx.querystring;
    if (query.includes('%') && API_PATH.test(ctx.path) && !decodes(query)) {
      throw new RequestValidationError([{ field: 'query', message: RULE }]);
    }
    return next();
  };
}

/** `&` and `=` decode to themselves, so decoding the whole query fails exactly when one of its parts would. */
function decodes(query: string): boolean {
  try {
    decodeURIComponent(query);
    return true;
  } catch {
    return false;
  }
}

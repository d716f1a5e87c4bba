import type Router from '@koa/router';
import { SearchMessages } from '../../../application/use-cases/search-messages.js';
import { searchCursor } from '../cursor.js';
import { searchResultsJson } from '../presenters.js';
import type { Resolve } from '../resolve.js';
import type { RequestSchemas } from '../schemas.js';
import { parseRequest } from '../validate.js';

export function searchRoutes(router: Router, resolve: Resolve, schemas: RequestSchemas): void {
  router.get('/api/chat/search', async (ctx) => {
    const input = parseRequest(schemas.search, ctx.query, 'query');
    // A cursor serves the query and filters it was made for, and no other.
    const scope = searchCursor.scope({ user: input.user_id, q: input.q, c: input.conversation_id, r: input.role, f: input.from, t: input.to });
    const after = input.cursor === undefined ? null : searchCursor.decode(input.cursor, scope);
    const found = await resolve(SearchMessages).execute({
      userId: input.user_id,
      q: input.q,
      conversationId: input.conversation_id ?? null,
      role: input.role ?? null,
      from: input.from ?? null,
      to: input.to ?? null,
      limit: input.limit,
      after,
    });
    ctx.body = searchResultsJson(found.results, found.next ? searchCursor.encode(scope, found.next) : null);
  });
}

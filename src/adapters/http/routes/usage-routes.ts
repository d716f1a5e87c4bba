import type Router from '@koa/router';
import { GetUsage } from '../../../application/use-cases/get-usage.js';
import type { Resolve } from '../resolve.js';
import { usageJson } from '../usage-presenters.js';
import { usageQuery } from '../usage-schemas.js';
import { parseRequest } from '../validate.js';

/** GET /v1/usage?user_id=…&from=…&to=…: a user's usage per UTC day (with identity on, one's own only). */
export function usageRoutes(router: Router, resolve: Resolve): void {
  router.get('/v1/usage', async (ctx) => {
    const query = parseRequest(usageQuery, ctx.query, 'query');
    ctx.body = usageJson(await resolve(GetUsage).execute({ userId: query.user_id, from: query.from, to: query.to }));
  });
}

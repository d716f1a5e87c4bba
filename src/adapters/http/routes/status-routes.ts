import type Router from '@koa/router';
import { CheckReadiness } from '../../../application/use-cases/check-readiness.js';
import { GetGraphStatus } from '../../../application/use-cases/get-graph-status.js';
import { GetHealth } from '../../../application/use-cases/get-health.js';
import type { Resolve } from '../resolve.js';
import { graphStatusJson, healthJson, readinessJson } from '../status-presenters.js';

export function statusRoutes(router: Router, resolve: Resolve): void {
  router.get('/v1/health', (ctx) => {
    ctx.body = healthJson(resolve(GetHealth).execute());
  });

  router.get('/v1/health/ready', async (ctx) => {
    const readiness = await resolve(CheckReadiness).execute();
    ctx.status = readiness.ready ? 200 : 503;
    ctx.body = readinessJson(readiness);
  });

  router.get('/api/status/graphdb', async (ctx) => {
    const graph = await resolve(GetGraphStatus).execute();
    ctx.status = graph.state === 'unreachable' ? 503 : 200;
    ctx.body = graphStatusJson(graph);
  });
}

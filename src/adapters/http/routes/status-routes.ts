import type Router from '@koa/router';
import { graphStatusJson, healthJson, readinessJson } from '../status-presenters.js';
import type { UseCases } from '../use-cases.js';

export function statusRoutes(router: Router, useCases: UseCases): void {
  router.get('/v1/health', (ctx) => {
    ctx.body = healthJson(useCases.getHealth().execute());
  });

  router.get('/v1/health/ready', async (ctx) => {
    const readiness = await useCases.checkReadiness().execute();
    ctx.status = readiness.ready ? 200 : 503;
    ctx.body = readinessJson(readiness);
  });

  router.get('/api/status/graphdb', async (ctx) => {
    const graph = await useCases.getGraphStatus().execute();
    ctx.status = graph.state === 'unreachable' ? 503 : 200;
    ctx.body = graphStatusJson(graph);
  });
}

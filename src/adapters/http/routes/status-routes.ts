import type Router from '@koa/router';
import { CheckReadiness } from '../../../application/use-cases/check-readiness.js';
import { GetGraphStatus } from '../../../application/use-cases/get-graph-status.js';
import { GetHealth } from '../../../application/use-cases/get-health.js';
import type { Resolve } from '../resolve.js';

export function statusRoutes(router: Router, resolve: Resolve): void {
  router.get('/v1/health', (ctx) => {
    const health = resolve(GetHealth).execute();
    ctx.body = { status: 'ok', version: health.version, uptime_s: health.uptimeSeconds };
  });

  router.get('/v1/health/ready', async (ctx) => {
    const readiness = await resolve(CheckReadiness).execute();
    ctx.status = readiness.ready ? 200 : 503;
    ctx.body = readiness.ready
      ? { status: 'ok', checks: readiness.checks }
      : { status: 'error', detail: readiness.detail, checks: readiness.checks };
  });

  router.get('/api/status/graphdb', async (ctx) => {
    const graph = await resolve(GetGraphStatus).execute();
    switch (graph.state) {
      case 'connected':
        ctx.body = { status: 'ok', connected: true, server_version: graph.serverVersion, latency_ms: graph.latencyMs };
        break;
      case 'disabled':
        ctx.body = { status: 'disabled', connected: false, detail: graph.detail };
        break;
      case 'unreachable':
        ctx.status = 503;
        ctx.body = { status: 'error', connected: false, detail: graph.detail };
        break;
    }
  });
}

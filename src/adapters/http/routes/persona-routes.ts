import type Router from '@koa/router';
import { personaJson } from '../status-presenters.js';
import type { UseCases } from '../use-cases.js';

export function personaRoutes(router: Router, useCases: UseCases): void {
  router.get('/api/ai/traits', (ctx) => {
    ctx.body = personaJson(useCases.getPersona().execute());
  });
}

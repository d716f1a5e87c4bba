import type Router from '@koa/router';
import { personaJson } from '../status-presenters.js';
import { GetPersona } from '../../../application/use-cases/get-persona.js';
import type { Resolve } from '../resolve.js';

export function personaRoutes(router: Router, resolve: Resolve): void {
  router.get('/api/ai/traits', (ctx) => {
    ctx.body = personaJson(resolve(GetPersona).execute());
  });
}

import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { CredentialRejectedError, type CredentialVerifier, type Identity } from '../../identity/credentials.js';
import { presentedCredential, unauthorized } from './bearer.js';
import { bindQueryUser } from './identity-user.js';

declare module 'koa' {
  interface DefaultState {
    /** Who is asking, when identity is on (AUTH_MODE=oidc) and the route needs it. */
    identity?: Identity;
  }
}

/**
 * Routes anyone may call with identity on, by the pattern they are registered with: health,
 * readiness, this service's OpenAPI document and its explorer. Every other route needs a
 * credential, so a route added later is closed unless it is listed here. Requests no route
 * answers (the demo page's files, unknown paths, 405s) reach no data and pass unasked.
 */
export const OPEN_ROUTES: readonly string[] = ['/v1/health', '/v1/health/ready', '/openapi.json', '/docs', '/docs/init.js', '/docs/:file'];

/**
 * Identity at the edge. A request for a closed route must carry `Authorization: Bearer` with a
 * credential the verifier accepts (else 401); its identity goes to `ctx.state.identity`, and
 * the query's `user_id` is checked against it or filled in (bodies: identity-user.ts, after
 * parsing). The decision asks the router itself which routes match, so it cannot disagree with
 * the routing about case, trailing slashes or encodings.
 */
export function authentication(verifier: CredentialVerifier, router: Router, openRoutes: readonly string[] = OPEN_ROUTES): Middleware {
  const open = new Set(openRoutes);
  return async (ctx, next) => {
    const route = closedRoute(ctx, router, open);
    if (route === undefined) return next();
    // Refused before routing: name the route for the request metrics, as the router would have.
    (ctx as { _matchedRoute?: string })._matchedRoute = route;
    const presented = presentedCredential(ctx);
    if (presented.kind === 'none') throw unauthorized(ctx);
    if (presented.kind === 'malformed') throw unauthorized(ctx, 'the token is malformed');
    try {
      ctx.state.identity = await verifier.verify(presented.token);
    } catch (error) {
      if (error instanceof CredentialRejectedError) throw unauthorized(ctx, error.description);
      throw error; // the provider unavailable (503), or an unexpected fault
    }
    bindQueryUser(ctx);
    await next();
  };
}

/** The pattern of the route that will answer, when it is not open; undefined when no credential is needed. */
function closedRoute(ctx: Context, router: Router, open: Set<string>): string | undefined {
  const match = router.match(ctx.path, ctx.method);
  if (!match.route) return undefined;
  const routes = match.pathAndMethod.filter((layer) => layer.methods.length > 0).map((layer) => String(layer.path));
  return routes.some((path) => !open.has(path)) ? routes.at(-1) : undefined;
}

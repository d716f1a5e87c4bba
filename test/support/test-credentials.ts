/**
 * Services started with identity on register here how to authorize a request to them, so that
 * the two doors every HTTP test goes through (TestService.call and documentedFetch) add the
 * credential by themselves: a test written without identity runs unchanged with it.
 */
export type Authorize = (path: string, body: unknown) => Promise<string>;

const registry = new Map<string, Authorize>();

export function registerCredentials(url: string, authorize: Authorize): void {
  registry.set(new URL(url).origin, authorize);
}

export function forgetCredentials(url: string): void {
  registry.delete(new URL(url).origin);
}

/** The Authorization header for a request to `url`, or undefined when its service needs none. */
export async function authorizationFor(url: string, body: unknown): Promise<string | undefined> {
  const parsed = new URL(url);
  return registry.get(parsed.origin)?.(parsed.pathname + parsed.search, body);
}

/**
 * Services started with identity on register here how to authorize a request to them, so that
 * the doors every HTTP test goes through add the credential by themselves: TestService.call,
 * documentedFetch, the TLS clients (tls-clients.ts), openAiClientFor (openai-client.ts), and
 * withCredentials / credentialLine below for node:http and raw sockets. A test written without
 * identity runs unchanged with it (npm run test:identity).
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

/**
 * `headers` plus, for a service with identity on, the Authorization its request needs (unless
 * `headers` has one already, in any case): the door of every test client that is not fetch()
 * (HTTP/2, HTTPS/1.1, node:http), so a test written without identity runs unchanged with it.
 */
export async function withCredentials(url: string, headers: Record<string, string> = {}, body?: unknown): Promise<Record<string, string>> {
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) return headers;
  const authorization = await authorizationFor(url, body);
  return authorization ? { ...headers, authorization } : headers;
}

/** For a request written by hand on a socket: its Authorization header line (CRLF included), or ''. */
export async function credentialLine(url: string, body?: unknown): Promise<string> {
  const authorization = await authorizationFor(url, body);
  return authorization ? `Authorization: ${authorization}\r\n` : '';
}

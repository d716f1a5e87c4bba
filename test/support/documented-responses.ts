import type { IncomingHttpHeaders } from 'node:http';
import { ResponseConformance, type ObservedResponse } from './openapi-conformance.js';
import { http2Fetch } from './tls-clients.js';
import { authorizationFor } from './test-credentials.js';

/**
 * The one door every HTTP test's responses go through: each is checked against the document the
 * service itself serves at /openapi.json (see openapi-conformance.ts for the rules), fetched
 * once per running service.
 */

const documents = new Map<string, Promise<ResponseConformance>>();

/** The checker for the service at `url`, from its own /openapi.json (fetched on first use). */
export function conformanceOf(url: string): Promise<ResponseConformance> {
  const origin = new URL(url).origin;
  let conformance = documents.get(origin);
  if (!conformance) {
    conformance = loadDocument(origin);
    documents.set(origin, conformance);
    conformance.catch(() => documents.delete(origin)); // a failed fetch is retried next time
  }
  return conformance;
}

/** A service started or stopped at `url`: a port may be reused, so forget its old document. */
export function forgetDocument(url: string): void {
  documents.delete(new URL(url).origin);
}

async function loadDocument(origin: string): Promise<ResponseConformance> {
  // fetch() cannot reach the service over TLS with its test certificate: HTTP/2 instead.
  const response = origin.startsWith('https:') ? await http2Fetch(`${origin}/openapi.json`) : await fetch(`${origin}/openapi.json`);
  const body = response instanceof Response ? await response.text() : response.text;
  if (response.status !== 200) throw new Error(`GET ${origin}/openapi.json answered ${response.status}: ${body.slice(0, 200)}`);
  const conformance = new ResponseConformance(JSON.parse(body));
  conformance.check({ method: 'GET', path: '/openapi.json', status: response.status, header: (name) => response.headers.get(name), body });
  return conformance;
}

/** Throws if the service at `url` answered what its document does not describe. */
export async function expectDocumented(url: string, method: string, response: Omit<ObservedResponse, 'method' | 'path'>): Promise<void> {
  const { pathname, search } = new URL(url);
  (await conformanceOf(url)).check({ ...response, method, path: pathname + search });
}

/** Headers of a Fetch API response or of node:http's IncomingMessage, read by name. */
export function headerReader(headers: Headers | IncomingHttpHeaders): (name: string) => string | null {
  if (headers instanceof Headers) return (name) => headers.get(name);
  return (name) => {
    const value = headers[name.toLowerCase()];
    return value === undefined ? null : [value].flat().join(', ');
  };
}

/** Bodies that may stream for long or hold bytes are checked by status and type, not read. */
const STREAMED = /^(text\/event-stream|audio\/)/i;

/**
 * fetch(), with the answer checked against the document before it is returned (and, to a
 * service with identity on, the credential its request needs). Other bodies
 * are read from a clone, so the caller still reads the original as it wishes.
 */
export async function documentedFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = input instanceof Request ? input.url : String(input);
  const headers = new Headers(input instanceof Request ? input.headers : undefined);
  new Headers(init.headers).forEach((value, name) => headers.set(name, value));
  // A service started with identity on (test-credentials.ts) gets the credential the request needs.
  const authorization = headers.has('authorization') ? undefined : await authorizationFor(url, init.body);
  if (authorization) headers.set('authorization', authorization);
  const response = await fetch(input, { ...init, headers });
  const method = init.method ?? (input instanceof Request ? input.method : 'GET');
  const streamed = STREAMED.test(response.headers.get('content-type') ?? '');
  const body = streamed ? undefined : await response.clone().text();
  await expectDocumented(url, method, { status: response.status, header: headerReader(response.headers), body });
  return response;
}

import { loadConfig } from '../../src/bootstrap/config.js';
import { startService, type RunningService } from '../../src/bootstrap/server.js';
import type { AdapterOverrides } from '../../src/bootstrap/tokens.js';
import { conformanceOf, expectDocumented, forgetDocument, headerReader } from './documented-responses.js';
import { http2Fetch } from './tls-clients.js';
import { startIdentityTestService } from './identity-service.js';

export interface TestService extends RunningService {
  /**
   * fetch() against the service; a JSON `body` is sent as application/json. The answer is
   * checked against the service's /openapi.json (documented-responses.ts): one it does not
   * describe throws.
   */
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  post(path: string, body: unknown): Promise<CallResult>;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as-is instead of JSON. */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  text: string;
}

/**
 * The whole service, from a container with test config, listening on port 0. With
 * TEST_AUTH_MODE=oidc in the environment, identity is on and every request carries a credential
 * (identity-service.ts): the HTTP suite runs once more that way (npm run test:identity).
 */
export async function startTestService(environment: Record<string, string> = {}, overrides: AdapterOverrides = {}): Promise<TestService> {
  // Some tests provoke a 500 on purpose (a broken store); the suite's own assertions judge them.
  if (process.env.TEST_AUTH_MODE === 'oidc') return startIdentityTestService(environment, overrides, { forbid500: false });
  return startPlainTestService(environment, overrides);
}

/** The service as configured by `environment` alone. */
export async function startPlainTestService(
  environment: Record<string, string> = {},
  overrides: AdapterOverrides = {},
): Promise<TestService> {
  // Start-up does not wait for the speech engine's warm-up (it goes on in the background): tests start hundreds of services.
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', OFFLINE_STREAM_DELAY_MS: '0', TTS_WARMUP_MS: '0', ...environment });
  const service = await startService(config, overrides);
  forgetDocument(service.url); // a port may be reused: never check against an earlier service's document
  await conformanceOf(service.url); // now, so that a test stopping the service can still check its answers
  const call = async (method: string, path: string, options: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | Uint8Array | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    // Over TLS (a self-signed test certificate), HTTP/2 through node:http2; else fetch(). Bare:
    // with identity on, startIdentityTestService's call() has added the credential (or not: bare()).
    const response = service.url.startsWith('https:')
      ? await http2Fetch(service.url + path, { method, headers, body, bare: true })
      : await fetch(service.url + path, { method, headers, body });
    const text = response instanceof Response ? await response.text() : response.text;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    await expectDocumented(service.url + path, method, { status: response.status, header: headerReader(response.headers), body: text });
    return { status: response.status, headers: response.headers, json, text };
  };
  const stop = async () => {
    await service.stop();
    forgetDocument(service.url);
  };
  return { ...service, stop, call, post: (path, body) => call('POST', path, { body }) };
}

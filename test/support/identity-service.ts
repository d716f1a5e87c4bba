import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { isValidClientId } from '../../src/domain/ids.js';
import type { AdapterOverrides } from '../../src/bootstrap/tokens.js';
import { LocalIdentityProvider } from './identity-provider.js';
import { startPlainTestService, type CallOptions, type CallResult, type TestService } from './service.js';
import { forgetCredentials, registerCredentials } from './test-credentials.js';

export interface IdentityTestService extends TestService {
  provider: LocalIdentityProvider;
  /** Keys of the service's API keys file: one acting for any user, one for `mappedUser` only. */
  apiKeys: { anyUser: string; mapped: string; mappedUser: string };
  /** call() with exactly the headers given: no credential is added. */
  bare(method: string, path: string, options?: CallOptions): Promise<CallResult>;
}

export const newApiKey = () => randomBytes(32).toString('base64url');
const hashOf = (key: string, algorithm: 'sha256' | 'sha512') => `${algorithm}:${createHash(algorithm).update(key).digest('hex')}`;

const LONE_SURROGATE = /\p{Cs}/u;
/** A user id a token can carry (the service refuses a token naming any other). */
const tokenUser = (value: unknown): value is string => isValidClientId(value) && !LONE_SURROGATE.test(value);

/** Bytes as the service reads them: gzip's (the only encoding tests compress with) undone. */
const decoded = (body: Uint8Array): Uint8Array => (body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body) : body);

function parsedBody(body: unknown): unknown {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return body;
  try {
    return JSON.parse((typeof body === 'string' ? body : new TextDecoder().decode(decoded(body))).replace(/^\uFEFF/, ''));
  } catch {
    return undefined;
  }
}

/**
 * The one user a request names, in `user_id` of its JSON object body or of its query; undefined
 * when it names none, or two different ones (the body wins without identity; with it, such a
 * request is 403, which no test written without identity expects).
 */
function namedUser(path: string, body: unknown): unknown {
  const value = parsedBody(body);
  const inBody = typeof value === 'object' && value !== null && !Array.isArray(value) && 'user_id' in value ? value.user_id : undefined;
  const inQuery = new URL(path, 'http://x').searchParams.getAll('user_id');
  if (inQuery.length > 1 || (inBody !== undefined && inQuery.length === 1 && inQuery[0] !== inBody)) return undefined;
  return inBody ?? inQuery[0];
}

/**
 * The whole service with identity on (AUTH_MODE=oidc against a local provider, plus an API
 * keys file), whose call() adds a credential to every request that has none: a token for the
 * user the request names, or, when it names none (or one no token could carry), the API key
 * that acts for any user, so that the request is judged as it would be without identity. With
 * `forbid500` (the default) a request answered 500 fails the test.
 */
export async function startIdentityTestService(
  environment: Record<string, string> = {},
  overrides: AdapterOverrides = {},
  guard: { forbid500: boolean } = { forbid500: true },
): Promise<IdentityTestService> {
  const provider = await LocalIdentityProvider.start();
  const apiKeys = { anyUser: newApiKey(), mapped: newApiKey(), mappedUser: 'reporting-service' };
  const dir = await mkdtemp(join(tmpdir(), 'assistant-identity-'));
  const keysFile = join(dir, 'api-keys.json');
  await writeFile(
    keysFile,
    JSON.stringify({
      keys: [
        { name: 'backend', hash: hashOf(apiKeys.anyUser, 'sha256'), any_user: true },
        { name: 'reports', hash: hashOf(apiKeys.mapped, 'sha512'), user_id: apiKeys.mappedUser },
      ],
    }),
  );
  let service: TestService;
  try {
    service = await startPlainTestService(
      { AUTH_MODE: 'oidc', AUTH_ISSUER: provider.issuer, AUTH_AUDIENCE: provider.audience, AUTH_API_KEYS_FILE: keysFile, ...environment },
      overrides,
    );
  } catch (error) {
    await provider.stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const tokens = new Map<string, Promise<string>>();
  const authorize = async (path: string, body: unknown) => {
    const user = namedUser(path, body);
    if (!tokenUser(user)) return `Bearer ${apiKeys.anyUser}`;
    if (!tokens.has(user)) tokens.set(user, provider.token(user));
    return `Bearer ${await tokens.get(user)!}`;
  };
  registerCredentials(service.url, authorize);

  const bare = async (method: string, path: string, options: CallOptions = {}) => {
    const result = await service.call(method, path, options);
    if (guard.forbid500 && result.status === 500) throw new Error(`${method} ${path} answered 500 with identity on: ${result.text.slice(0, 300)}`);
    return result;
  };
  const call = async (method: string, path: string, options: CallOptions = {}) => {
    const headers = { ...options.headers };
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) headers.authorization = await authorize(path, options.body ?? options.raw);
    return bare(method, path, { ...options, headers });
  };
  const stop = async () => {
    forgetCredentials(service.url);
    await service.stop();
    await provider.stop();
    await rm(dir, { recursive: true, force: true });
  };
  return { ...service, provider, apiKeys, bare, call, post: (path, body) => call('POST', path, { body }), stop };
}

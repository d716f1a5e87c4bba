import OpenAI, { type ClientOptions } from 'openai';
import { documentedFetch } from './documented-responses.js';
import type { TestService } from './service.js';
import { authorizationFor } from './test-credentials.js';

/**
 * OpenAI's own client for the service's /v1 endpoints, its every answer checked against the
 * service's /openapi.json on the way (documentedFetch). The SDK always sends
 * `Authorization: Bearer <apiKey>`: its key is the credential the service needs, asked for each
 * request (with identity on, the API key that acts for any user, as a backend would hold;
 * without it, a placeholder the service ignores).
 */
export function openAiClientFor(service: Pick<TestService, 'url'>, options: ClientOptions = {}): OpenAI {
  const apiKey = async () => (await authorizationFor(`${service.url}/v1`, undefined))?.replace(/^Bearer /, '') ?? 'unused';
  return new OpenAI({ baseURL: `${service.url}/v1`, apiKey, maxRetries: 0, fetch: documentedFetch, ...options });
}

import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { LIMITED_ROUTES } from './middleware/usage-limits.js';
import { reply, responses } from './openapi-responses.js';
import { usageQuery, usageResponse } from './usage-schemas.js';

type Operation = (summary: string, operation: Omit<ZodOpenApiOperationObject, 'summary'>) => ZodOpenApiOperationObject;
type Json = Record<string, unknown>;

const USAGE_DESCRIPTION = `Usage per UTC day: requests let in on the chat, response and speech endpoints, the language model's tokens (its own
count, else an estimate; a stopped reply counts what it wrote) and characters of speech, as every instance on the store counted them.
\`from\` and \`to\` are UTC days (default: today; at most 366 days); every day between is listed, zeros included. With identity on, one's own only.`;

/** GET /v1/usage */
export function usagePaths(op: Operation): ZodOpenApiPathsObject {
  return {
    '/v1/usage': {
      get: op("A user's usage per day", {
        description: USAGE_DESCRIPTION,
        requestParams: { query: usageQuery },
        responses: responses({ '200': reply('The usage', usageResponse) }, 400, 503),
      }),
    },
  };
}

const header = (description: string, required = false) => ({ description, required, schema: { type: 'string' } });

/** The headers of a limited operation's answers while limits are on. */
const LIMIT_HEADERS: Json = {
  RateLimitPolicy: header('The user\'s limits (IETF draft-ietf-httpapi-ratelimit-headers), e.g. `"requests";q=60;w=60, "tokens";q=100000;w=86400;qu="tokens"`'),
  RateLimit: header('What is left of each, and in how many seconds it starts again, e.g. `"requests";r=59;t=42, "tokens";r=99000;t=3600`'),
  XRateLimitLimitRequests: header("OpenAI's: requests per minute"),
  XRateLimitRemainingRequests: header("OpenAI's: requests left this minute"),
  XRateLimitResetRequests: header("OpenAI's: when the minute starts again, e.g. `42s`"),
  XRateLimitLimitTokens: header("OpenAI's: tokens per day"),
  XRateLimitRemainingTokens: header("OpenAI's: tokens left today"),
  XRateLimitResetTokens: header("OpenAI's: when the day starts again (midnight UTC), e.g. `6h0m0s`"),
};
const HEADER_NAMES: Record<string, string> = {
  'RateLimit-Policy': 'RateLimitPolicy',
  RateLimit: 'RateLimit',
  'x-ratelimit-limit-requests': 'XRateLimitLimitRequests',
  'x-ratelimit-remaining-requests': 'XRateLimitRemainingRequests',
  'x-ratelimit-reset-requests': 'XRateLimitResetRequests',
  'x-ratelimit-limit-tokens': 'XRateLimitLimitTokens',
  'x-ratelimit-remaining-tokens': 'XRateLimitRemainingTokens',
  'x-ratelimit-reset-tokens': 'XRateLimitResetTokens',
};
const LIMIT_REFS = Object.fromEntries(Object.entries(HEADER_NAMES).map(([name, id]) => [name, { $ref: `#/components/headers/${id}` }]));

const TOO_MANY =
  'A limit of the user is reached (only with limits on: LIMIT_REQUESTS_PER_MINUTE, LIMIT_TOKENS_PER_DAY, LIMITS_FILE). Nothing was done and nothing counted; `Retry-After` says when the limit lets the user in again.';

/**
 * Every operation LIMITED_ROUTES names (a route registered later, such as POST /v1/responses,
 * as soon as it is in the document): a 429 in the operation's own error shape, and the limit
 * headers on each of its answers.
 */
export function withLimits<D extends object>(document: D): D {
  const doc = document as Json;
  const components = (doc.components ??= {}) as Json;
  components.headers = { ...(components.headers as Json | undefined), ...LIMIT_HEADERS };
  const paths = doc.paths as Record<string, Json>;
  for (const route of LIMITED_ROUTES) {
    const operation = paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()] as Json | undefined;
    if (!operation) continue;
    const answers = operation.responses as Record<string, Json>;
    for (const answer of Object.values(answers)) answer.headers = { ...(answer.headers as Json | undefined), ...LIMIT_REFS };
    answers['429'] = {
      description: TOO_MANY,
      headers: { 'X-Request-Id': { $ref: '#/components/headers/RequestId' }, 'Retry-After': header('Seconds to wait', true), ...LIMIT_REFS },
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.openAi ? 'OpenAiError' : 'Error'}` } } },
    };
  }
  return document;
}

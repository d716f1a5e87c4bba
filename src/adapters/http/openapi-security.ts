import { OPEN_ROUTES } from './middleware/authentication.js';
import { OPENAI_API_PATHS } from './openai-path-errors.js';

/** What the document says about credentials: identity on (AUTH_MODE=oidc), and a token on GET /metrics. */
export interface SecurityOptions {
  identity: boolean;
  metricsToken: boolean;
}

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const ERROR_SCHEMA = { $ref: '#/components/schemas/Error' };
const REQUEST_ID = { $ref: '#/components/headers/RequestId' };
const USER_NOTE = 'With identity on, optional: the authenticated user is meant; another user\'s id is 403.';

const BEARER_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description:
    'A JSON Web Token of the configured OpenID Connect issuer (checked: signature by its published keys, `iss`, `aud`, `exp`, `nbf`), ' +
    'or an API key of the configured file. The user is the token\'s user claim (`sub` unless configured); `user_id` in a body or query may then be left out.',
};
const METRICS_SCHEME = { type: 'http', scheme: 'bearer', description: 'The token set in METRICS_TOKEN.' };

const OPENAI_ERROR_SCHEMA = { $ref: '#/components/schemas/OpenAiError' };

const errorReply = (description: string, extraHeaders: Json = {}, schema: Json = ERROR_SCHEMA) => ({
  description,
  headers: { 'X-Request-Id': REQUEST_ID, ...extraHeaders },
  content: { 'application/json': { schema } },
});

/** The same answer in OpenAI's error shape, as every error on OpenAI's paths is. */
const inOpenAiShape = (reply: ReturnType<typeof errorReply>) => ({ ...reply, content: { 'application/json': { schema: OPENAI_ERROR_SCHEMA } } });

const UNAUTHORIZED = errorReply('No credential, or one that is not accepted (expired, not yet valid, another issuer or audience, a bad signature, an unknown API key)', {
  'WWW-Authenticate': {
    required: true,
    description: '`Bearer`, plus `error="invalid_token"` and an `error_description` when a credential was sent (RFC 6750)',
    schema: { type: 'string' },
  },
});
const FORBIDDEN = errorReply("`user_id` names another user than the one authenticated");
const PROVIDER_DOWN = 'The identity provider cannot be reached (its keys are needed to check the token)';

/**
 * The OpenAPI document with its security declared: the bearer scheme, and on each operation
 * whether it needs it (the routes OPEN_ROUTES lists do not), with the 401 and 403 it may answer
 * and `user_id` optional. Without identity nor METRICS_TOKEN the document is returned as it is.
 */
export function withSecurity<D extends object>(document: D, options: SecurityOptions): D {
  if (!options.identity && !options.metricsToken) return document;
  const doc = structuredClone(document) as Json;
  const components = (doc.components ??= {}) as Json;
  components.securitySchemes = {
    ...(options.identity ? { bearer: BEARER_SCHEME } : {}),
    ...(options.metricsToken ? { metrics_token: METRICS_SCHEME } : {}),
  };
  const open = new Set(OPEN_ROUTES.map((route) => route.replace(/:(\w+)/g, '{$1}')));
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const responses = operation.responses as Json;
      if (path === '/metrics' && options.metricsToken) {
        operation.security = [{ metrics_token: [] }];
        responses['401'] = UNAUTHORIZED;
      } else if (options.identity && open.has(path)) {
        operation.security = [];
      } else if (options.identity) {
        operation.security = [{ bearer: [] }];
        // An operation of OpenAI's paths that names its own 401 and 403 (the user is named there even without identity) says so itself.
        const openAi = OPENAI_API_PATHS.test(path);
        responses['401'] ??= openAi ? inOpenAiShape(UNAUTHORIZED) : UNAUTHORIZED;
        responses['403'] ??= openAi ? inOpenAiShape(FORBIDDEN) : FORBIDDEN;
        responses['503'] = withProviderDown(responses['503'] as Json | undefined);
        userIdOptional(operation);
      }
    }
  }
  if (options.identity) doc.security = [{ bearer: [] }];
  return doc as D;
}

/** The operation's own 503 (another shape, perhaps), or the identity provider's Error body. */
function withProviderDown(own: Json | undefined): Json {
  if (!own) return errorReply(PROVIDER_DOWN);
  const content = (own.content ?? {}) as Record<string, { schema?: unknown }>;
  const json = content['application/json']?.schema;
  if (json === undefined || JSON.stringify(json) === JSON.stringify(ERROR_SCHEMA)) return { ...own, description: `${String(own.description)}; or: ${PROVIDER_DOWN}` };
  return {
    ...own,
    description: `${String(own.description)}; or (the Error body): ${PROVIDER_DOWN}`,
    content: { ...content, 'application/json': { schema: { anyOf: [json, ERROR_SCHEMA] } } },
  };
}

function userIdOptional(operation: Json): void {
  for (const parameter of (operation.parameters ?? []) as Json[]) {
    if (parameter.name === 'user_id' && parameter.in === 'query') {
      parameter.required = false;
      parameter.description = [parameter.description, USER_NOTE].filter(Boolean).join(' ');
    }
  }
  const body = operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined;
  for (const media of Object.values(body?.content ?? {})) relaxUserId(media.schema);
}

/** Every object schema in a request body that has a `user_id` property stops requiring it. */
function relaxUserId(schema: unknown): void {
  if (typeof schema !== 'object' || schema === null) return;
  if (Array.isArray(schema)) return schema.forEach(relaxUserId);
  const node = schema as Json;
  const properties = node.properties as Json | undefined;
  if (properties?.user_id && Array.isArray(node.required)) {
    node.required = node.required.filter((name) => name !== 'user_id');
    const property = properties.user_id as Json;
    property.description = [property.description, USER_NOTE].filter(Boolean).join(' ');
  }
  for (const value of Object.values(node)) relaxUserId(value);
}

import Router from '@koa/router';
import Koa from 'koa';
import { METHODS } from 'node:http';
import type { Logger } from 'pino';
import type { IdGenerator } from '../../application/ports/id-generator.js';
import { accessLog } from './middleware/access-log.js';
import { errorHandler } from './middleware/error-handler.js';
import { jsonBody } from './middleware/json-body.js';
import { wellFormedRequest } from './middleware/well-formed-request.js';
import { requestId } from './middleware/request-id.js';
import { securityHeaders, type HstsSettings } from './middleware/security-headers.js';
import { clientOrigin } from './middleware/client-origin.js';
import { TrustedProxies } from './trusted-proxies.js';
import { staticFiles } from './middleware/static-files.js';
import { corsFor } from './middleware/cors.js';
import { requestMetrics } from './middleware/request-metrics.js';
import { runFirst } from './middleware/steps.js';
import { openApiDocument } from './openapi.js';
import { operationsRoutes } from './routes/operations-routes.js';
import type { Metrics } from '../metrics/metrics.js';
import { chatRoutes } from './routes/chat-routes.js';
import { personaRoutes } from './routes/persona-routes.js';
import { statusRoutes } from './routes/status-routes.js';
import { conversationRoutes } from './routes/conversation-routes.js';
import { transferRoutes } from './routes/transfer-routes.js';
import { storageRoutes } from './routes/storage-routes.js';
import { searchRoutes } from './routes/search-routes.js';
import { replyRoutes } from './routes/reply-routes.js';
import { streamRoutes } from './routes/stream-routes.js';
import { ttsRoutes } from './routes/tts-routes.js';
import { openAiSpeechRoutes } from './routes/openai-speech-routes.js';
import { openAiResponseRoutes } from './routes/openai-response-routes.js';
import { openAiConversationRoutes } from './routes/openai-conversation-routes.js';
import { openAiRequestSchemas } from './openai-request-schemas.js';
import { openAiPathErrors } from './openai-path-errors.js';
import { requestSchemas } from './schemas.js';
import type { Resolve } from './resolve.js';
import type { CredentialVerifier } from '../identity/credentials.js';
import { authentication, OPEN_ROUTES } from './middleware/authentication.js';
import { fixedBearerToken } from './middleware/bearer.js';
import { withBodyUser } from './middleware/identity-user.js';
import { usageLimits } from './middleware/usage-limits.js';
import { usageRoutes } from './routes/usage-routes.js';
import type { UsageLimits } from '../../application/usage/usage-limits.js';

export interface HttpSettings {
  bodyLimitBytes: number;
  /** The body limit of the import route alone (IMPORT_MAX_BYTES); 256 MiB when not given. */
  importMaxBytes?: number;
  maxTextLength: number;
  /** Longest silence on an event stream before a `: ping` comment; 15 s when not given. */
  ssePingIntervalMs?: number;
  /** What a client's disconnect does to the streamed reply it started (STREAM_ON_DISCONNECT); `continue` when not given. */
  streamOnDisconnect?: 'continue' | 'cancel';
  /** Origins allowed to call from a browser (CORS); none when empty. */
  corsOrigins?: string[];
  /** The service's version, for the OpenAPI document. */
  version?: string;
  /** Proxies whose X-Forwarded-* / Forwarded headers are believed (addresses, CIDR ranges, shortcuts); none when empty. */
  trustProxy?: string[];
  /** Strict-Transport-Security for requests that came over HTTPS; none when not given. */
  hsts?: HstsSettings;
  /** The bearer token GET /metrics requires (METRICS_TOKEN), whatever the identity setting. */
  metricsToken?: string;
}

export interface HttpDependencies {
  /** The use cases, built by the composition root. */
  resolve: Resolve;
  ids: IdGenerator;
  logger: Logger;
  settings: HttpSettings;
  /** Request counts and durations, and GET /metrics; left out, neither exists. */
  metrics?: Metrics;
  /** Identity on (AUTH_MODE=oidc): every route not open needs a credential this accepts. */
  identity?: CredentialVerifier | null;
  /** Counts the requests of the limited routes (middleware/usage-limits.ts) and, with limits on, refuses those over a limit. */
  usage?: UsageLimits;
}

/** The Koa application: middleware order is client, request id and headers (one step each), log, metrics, CORS, errors, query, identity, routes. */
export function createApp({ resolve, ids, logger, settings, metrics, identity, usage }: HttpDependencies): Koa {
  const app = new Koa();
  app.silent = true; // errors are logged by errorHandler, never by Koa to stderr
  // Every method Node parses counts as implemented, so TRACE on a known path is 405 with Allow, not 501.
  const router = new Router({ methods: [...METHODS] });
  const schemas = requestSchemas({ maxTextLength: settings.maxTextLength });
  const json = identity ? withBodyUser(jsonBody(settings.bodyLimitBytes)) : jsonBody(settings.bodyLimitBytes);
  const metricsToken = settings.metricsToken;

  chatRoutes(router, resolve, schemas, json);
  const pingIntervalMs = settings.ssePingIntervalMs ?? 15_000;
  streamRoutes(router, resolve, schemas, json, { logger, maxTextLength: settings.maxTextLength, pingIntervalMs, onDisconnect: settings.streamOnDisconnect ?? 'continue' });
  replyRoutes(router, resolve, schemas, json, { logger, pingIntervalMs });
  storageRoutes(router, resolve, schemas, json);
  conversationRoutes(router, resolve, schemas, json);
  searchRoutes(router, resolve, schemas);
  transferRoutes(router, resolve, schemas, { importMaxBytes: settings.importMaxBytes ?? 256 * 1024 * 1024 });
  statusRoutes(router, resolve);
  personaRoutes(router, resolve);
  ttsRoutes(router, resolve, json, logger);
  openAiSpeechRoutes(router, resolve, json, logger, settings.ssePingIntervalMs ?? 15_000);
  const openAiSchemas = openAiRequestSchemas({ maxTextLength: settings.maxTextLength });
  openAiResponseRoutes(router, resolve, openAiSchemas, json, { logger, pingIntervalMs, identity: Boolean(identity), onDisconnect: settings.streamOnDisconnect ?? 'continue' });
  openAiConversationRoutes(router, resolve, openAiSchemas, json, Boolean(identity));
  usageRoutes(router, resolve);
  const security = { identity: Boolean(identity), metricsToken: metricsToken !== undefined };
  const document = openApiDocument({ maxTextLength: settings.maxTextLength }, settings.version ?? '0.0.0', { metrics: metrics !== undefined, security });
  operationsRoutes(router, document, metrics, metricsToken === undefined ? [] : [fixedBearerToken(metricsToken)]);

  const trusted = settings.trustProxy?.length ? TrustedProxies.parse(settings.trustProxy) : undefined;
  app.use(runFirst(clientOrigin(trusted), requestId(ids), securityHeaders(settings.hsts)));
  app.use(accessLog(logger));
  if (metrics) app.use(requestMetrics(metrics));
  if (settings.corsOrigins?.length) app.use(corsFor(settings.corsOrigins));
  app.use(errorHandler(logger));
  app.use(openAiPathErrors(logger)); // OpenAI's error shape on its paths, identity's 401 and 403 included
  app.use(wellFormedRequest());
  // With METRICS_TOKEN, GET /metrics checks that token instead of a user's.
  if (identity) app.use(authentication(identity, router, metricsToken === undefined ? OPEN_ROUTES : [...OPEN_ROUTES, '/metrics']));
  if (usage) app.use(usageLimits(usage, router, json, logger));
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use(staticFiles()); // the demo page (public/), only where no route answered
  return app;
}

import { z } from 'zod';
import { TITLE_MODES } from '../application/conversations/conversation-titles.js';
import type { ConversationSettings } from '../application/conversations/sweep-conversations.js';
import { integer as integerField, optionalText } from './environment-fields.js';
import { LLM_ENVIRONMENT, llmConfigFrom, type LlmConfig } from './llm-config.js';
import { DEPENDENCY_ENVIRONMENT, graphConfigFrom, readinessConfigFrom, type GraphConfig, type ReadinessConfig } from './dependency-config.js';
import { TTS_ENVIRONMENT, ttsConfigFrom, type TtsConfig } from './tts-config.js';
import { TRANSPORT_ENVIRONMENT, transportConfigFrom, type TransportConfig } from './transport-config.js';
import { AUTH_ENVIRONMENT, authConfigFrom, type AuthConfig } from './auth-config.js';
import { LIMITS_ENVIRONMENT, limitsConfigFrom, type LimitsConfig } from './limits-config.js';

const integer = (min: number, max: number, fallback: number) => integerField(min, max).default(fallback);

/**
 * An origin as browsers send it (scheme, host, port): `https://app.example.com/` is taken as
 * `https://app.example.com`; one with a path, a query or credentials never matches a request's
 * Origin, so it is refused rather than leaving CORS silently off for it.
 */
const ORIGIN_RULE = 'must list origins such as https://app.example.com (no path), or *, comma-separated';
const isOrigin = (value: string) => {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return /^https?:$/.test(url.protocol) && url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
};
const origin = z
  .string()
  .refine((value) => value === '*' || isOrigin(value), ORIGIN_RULE)
  .transform((value) => (value === '*' ? value : new URL(value).origin));

/** Every setting, from the environment; docs/configuration.md says what each does. */
const environmentSchema = z.object({
  PORT: integer(0, 65_535, 8080),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: integer(1024, 100 * 1024 * 1024, 1024 * 1024),
  IMPORT_MAX_BYTES: integer(1024, 4 * 1024 * 1024 * 1024, 256 * 1024 * 1024),
  MAX_TEXT_LENGTH: integer(1, 1_000_000, 32_000),
  HISTORY_MESSAGES: integer(0, 500, 20),
  HISTORY_CHARS: integer(0, 1_000_000, 12_000),
  PERSONA_FILE: optionalText,
  OFFLINE_STREAM_DELAY_MS: integer(0, 10_000, 15),
  READINESS_TIMEOUT_MS: integer(100, 60_000, 2000),
  SHUTDOWN_TIMEOUT_MS: integer(0, 600_000, 10_000),
  REQUEST_TIMEOUT_MS: integer(100, 3_600_000, 30_000),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((list) => list.split(',').map((origin) => origin.trim()).filter((origin) => origin !== ''))
    .pipe(z.array(origin)),
  SSE_PING_INTERVAL_MS: integer(10, 15_000, 15_000),
  STREAM_ON_DISCONNECT: z.enum(['continue', 'cancel'], { error: 'must be "continue" or "cancel"' }).default('continue'),
  STREAM_STALE_MS: integer(1000, 3_600_000, 30_000),
  STREAM_WRITE_INTERVAL_MS: integer(20, 1000, 250),
  ...LLM_ENVIRONMENT,
  ...DEPENDENCY_ENVIRONMENT,
  ...TTS_ENVIRONMENT,
  ...TRANSPORT_ENVIRONMENT,
  ...AUTH_ENVIRONMENT,
  ...LIMITS_ENVIRONMENT,
  DATABASE_URL: z
    .string()
    .trim()
    .regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_POOL_MAX: integer(1, 1000, 10),
  DATABASE_TIMEOUT_MS: integer(100, 120_000, 3000),
  DATABASE_CREATE: z.enum(['true', 'false'], { error: 'must be "true" or "false"' }).default('false'),
  DATABASE_ANALYZE: z.enum(['auto', 'off'], { error: 'must be "auto" or "off"' }).default('auto'),
  MEMORY_STORE_MAX_MESSAGES: integer(1, 100_000_000, 100_000),
  TITLE_MODE: z.enum(TITLE_MODES, { error: 'must be "model", "first_message" or "off"' }).optional(),
  TITLE_TIMEOUT_MS: integer(100, 120_000, 5000),
  TEMPORARY_TTL_HOURS: integer(1, 24 * 365 * 100, 24),
  RETENTION_DAYS: integerField(1, 365 * 1000).optional(),
  SWEEP_INTERVAL_MS: integer(1000, 86_400_000, 60_000),
  SEARCH_LANGUAGE: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/, 'must name a PostgreSQL text-search configuration, such as english, german or simple')
    .default('english'),
});

export interface Config {
  port: number;
  host: string;
  logLevel: z.infer<typeof environmentSchema>['LOG_LEVEL'];
  /** JSON lines, or readable lines; `auto` is readable in a terminal. */
  logFormat: 'auto' | 'json' | 'pretty';
  /** Origins allowed to call the API from a browser; none by default. */
  corsOrigins: string[];
  bodyLimitBytes: number;
  /** The body limit of POST /api/users/{user_id}/import alone (IMPORT_MAX_BYTES). */
  importMaxBytes: number;
  chat: { maxTextLength: number; historyMessages: number; historyChars: number };
  /** Titles, temporary conversations and retention. */
  conversations: ConversationSettings;
  personaFile: string | undefined;
  offlineStreamDelayMs: number;
  readinessTimeoutMs: number;
  shutdownTimeoutMs: number;
  /** Longest a request (headers and body) may take to arrive; responses, such as event streams, are not bounded. */
  requestTimeoutMs: number;
  /** Longest silence on an event stream before a `: ping` comment. */
  ssePingIntervalMs: number;
  /** Replies as jobs of the service: how often they are written while they grow, when they count as dead, and what a client's disconnect does. */
  replies: { writeIntervalMs: number; staleMs: number; onDisconnect: 'continue' | 'cancel' };
  /** The language model: the offline assistant, or an OpenAI-compatible server. */
  llm: LlmConfig;
  /** PostgreSQL, when DATABASE_URL is set; else the in-memory store. */
  database: { url: string; poolMax: number; timeoutMs: number; create: boolean; keepStatistics: boolean } | null;
  /** The in-memory store (without DATABASE_URL): beyond `maxMessages`, the least recently active conversations go. */
  memoryStore: { maxMessages: number };
  /** Search: the PostgreSQL text-search configuration whose stemming and stop words it follows (both stores). */
  search: { language: string };
  /** The graph database (Neo4j), when NEO4J_URI is set. */
  graph: GraphConfig | null;
  /** Which dependencies /v1/health/ready requires, and how long remote results are reused. */
  readiness: ReadinessConfig;
  /** Text to speech: the embedded eSpeak NG, or an OpenAI-compatible speech API. */
  tts: TtsConfig;
  /** TLS (HTTPS with HTTP/2), HSTS and the proxies whose forwarding headers are believed. */
  transport: TransportConfig;
  /** Identity: who is asking, from a bearer token (AUTH_MODE=oidc), and the token of GET /metrics. */
  auth: AuthConfig;
  /** Usage per user and day, and its limits (off unless set). */
  limits: LimitsConfig;
}

export class ConfigInvalidError extends Error {}

/** Settings whose values may hold credentials are never echoed (a count of TOKENS is no credential). */
const SECRET_LIKE = /KEY|PASSWORD|SECRET|TOKEN(?!S)|URL|URI/;

/** Reads and validates the environment; the first problem becomes one clear line. */
export function loadConfig(environment: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(environment).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0]);
    const shown = SECRET_LIKE.test(name) ? 'a hidden value' : JSON.stringify(environment[name]);
    throw new ConfigInvalidError(`invalid configuration: ${name} ${issue.message} (got ${shown})`);
  }
  const env = parsed.data;
  const llm = llmConfigFrom(env);
  if (typeof llm === 'string') throw new ConfigInvalidError(`invalid configuration: ${llm}`);
  const transport = transportConfigFrom(env);
  if (typeof transport === 'string') throw new ConfigInvalidError(`invalid configuration: ${transport}`);
  const auth = authConfigFrom(env);
  if (typeof auth === 'string') throw new ConfigInvalidError(`invalid configuration: ${auth}`);
  return {
    port: env.PORT,
    host: env.HOST,
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT,
    corsOrigins: env.CORS_ORIGINS,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    importMaxBytes: env.IMPORT_MAX_BYTES,
    chat: { maxTextLength: env.MAX_TEXT_LENGTH, historyMessages: env.HISTORY_MESSAGES, historyChars: env.HISTORY_CHARS },
    conversations: {
      // With a language model, titles are its own by default; the offline assistant is no title writer.
      titles: { mode: env.TITLE_MODE ?? (llm.provider === 'openai' ? 'model' : 'first_message'), timeoutMs: env.TITLE_TIMEOUT_MS },
      temporaryTtlMs: env.TEMPORARY_TTL_HOURS * 3_600_000,
      retentionMs: env.RETENTION_DAYS === undefined ? null : env.RETENTION_DAYS * 86_400_000,
      sweepIntervalMs: env.SWEEP_INTERVAL_MS,
    },
    personaFile: env.PERSONA_FILE,
    offlineStreamDelayMs: env.OFFLINE_STREAM_DELAY_MS,
    readinessTimeoutMs: env.READINESS_TIMEOUT_MS,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    ssePingIntervalMs: env.SSE_PING_INTERVAL_MS,
    replies: { writeIntervalMs: env.STREAM_WRITE_INTERVAL_MS, staleMs: env.STREAM_STALE_MS, onDisconnect: env.STREAM_ON_DISCONNECT },
    llm,
    database: env.DATABASE_URL
      ? {
          url: env.DATABASE_URL,
          poolMax: env.DATABASE_POOL_MAX,
          timeoutMs: env.DATABASE_TIMEOUT_MS,
          create: env.DATABASE_CREATE === 'true',
          keepStatistics: env.DATABASE_ANALYZE === 'auto',
        }
      : null,
    memoryStore: { maxMessages: env.MEMORY_STORE_MAX_MESSAGES },
    search: { language: env.SEARCH_LANGUAGE },
    graph: graphConfigFrom(env),
    readiness: readinessConfigFrom(env),
    tts: ttsConfigFrom(env),
    transport,
    auth,
    limits: limitsConfigFrom(env),
  };
}

import { z } from 'zod';
import { integer } from './environment-fields.js';
import { NEO4J_SCHEMES, parseNeo4jUri } from '../adapters/graph/neo4j-uri.js';

/** The names readiness reports under `checks`, and that READY_REQUIRED may list. */
export const DEPENDENCY_NAMES = ['database', 'graph_database', 'language_model', 'identity_provider'] as const;
export type DependencyName = (typeof DEPENDENCY_NAMES)[number];

const isNeo4jUri = (value: string) => {
  try {
    parseNeo4jUri(value);
    return true;
  } catch {
    return false;
  }
};

const namesIn = (list: string): string[] => (list.trim() === 'none' ? [] : list.split(',').map((n) => n.trim()).filter(Boolean));

/** The graph-database and readiness settings, spread into the environment schema of config.ts. */
export const DEPENDENCY_ENVIRONMENT = {
  NEO4J_URI: z
    .string()
    .trim()
    .refine(isNeo4jUri, `must be a URI with a host and one of the schemes ${NEO4J_SCHEMES.map((s) => `${s}://`).join(', ')}`)
    .optional(),
  NEO4J_USER: z.string().trim().optional(),
  // Not trimmed: a password may begin or end with a space.
  NEO4J_PASSWORD: z.string().optional(),
  NEO4J_DATABASE: z.string().trim().optional(),
  NEO4J_TIMEOUT_MS: integer(100, 60_000).default(2000),
  // The identity provider counts only with identity on (AUTH_MODE=oidc); otherwise it is reported as disabled.
  READY_REQUIRED: z
    .string()
    .default('database,identity_provider')
    .refine(
      (list) => namesIn(list).every((name) => (DEPENDENCY_NAMES as readonly string[]).includes(name)),
      `must be "none" or a comma-separated list of ${DEPENDENCY_NAMES.join(', ')}`,
    )
    .transform((list) => [...new Set(namesIn(list))] as DependencyName[]),
  READY_CACHE_MS: integer(0, 600_000).default(5000),
};

type DependencyEnvironment = z.output<z.ZodObject<typeof DEPENDENCY_ENVIRONMENT>>;

export interface GraphConfig {
  /** May hold credentials in its userinfo: never log it; the adapter strips them. */
  uri: string;
  user: string | undefined;
  password: string | undefined;
  database: string | undefined;
  timeoutMs: number;
}

export interface ReadinessConfig {
  /** The dependencies whose failure makes /v1/health/ready answer 503. */
  required: DependencyName[];
  /** How long a graph-database or language-model result is reused; 0 asks every time. */
  cacheMs: number;
}

export function graphConfigFrom(env: DependencyEnvironment): GraphConfig | null {
  if (env.NEO4J_URI === undefined) return null;
  return {
    uri: env.NEO4J_URI,
    user: env.NEO4J_USER,
    password: env.NEO4J_PASSWORD,
    database: env.NEO4J_DATABASE,
    timeoutMs: env.NEO4J_TIMEOUT_MS,
  };
}

export function readinessConfigFrom(env: DependencyEnvironment): ReadinessConfig {
  return { required: env.READY_REQUIRED, cacheMs: env.READY_CACHE_MS };
}

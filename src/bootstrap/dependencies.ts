import type { Logger } from 'pino';
import type { Clock } from '../application/ports/clock.js';
import type { DependencyCheck } from '../application/ports/dependency-check.js';
import type { GraphStatusProbe } from '../application/ports/graph-status-probe.js';
import type { ModelHealthProbe } from '../adapters/llm/language-model-check.js';
import { CachedDependencyCheck } from '../adapters/readiness/cached-dependency-check.js';
import { IdentityProviderCheck, type IdentityProviderHealth } from '../adapters/identity/identity-provider-check.js';
import { GraphDatabaseCheck } from '../adapters/graph/graph-database-check.js';
import { LanguageModelCheck } from '../adapters/llm/language-model-check.js';
import { DisabledGraphStatusProbe } from '../adapters/graph/disabled-graph-status-probe.js';
import { Neo4jGraphStatusProbe } from '../adapters/graph/neo4j-graph-status-probe.js';
import { parseNeo4jUri } from '../adapters/graph/neo4j-uri.js';
import { OPENAI_BASE_URL } from '../adapters/llm/openai/openai-base-url.js';
import { OpenAiModelsProbe } from '../adapters/llm/openai-models-probe.js';
import type { Config } from './config.js';

/** Neo4j when NEO4J_URI is set (its driver starts now), else the disabled probe. */
export function graphStatusProbeFor(config: Config, logger: Logger, userAgent: string): GraphStatusProbe {
  if (!config.graph) return new DisabledGraphStatusProbe();
  const { uri, user, password, database, timeoutMs } = config.graph;
  return new Neo4jGraphStatusProbe({ uri, user, password, database, timeoutMs, userAgent, logger });
}

/** For the start-up log line: where the graph database is, without credentials. */
export function describeGraphDatabase(config: Config): string {
  return config.graph ? `Neo4j at ${parseNeo4jUri(config.graph.uri).safe}` : 'not configured (set NEO4J_URI)';
}

/** A remote model's server to ping; none for the offline assistant, which runs in the process. */
export function modelHealthProbeFor(config: Config): ModelHealthProbe | null {
  const { llm } = config;
  if (llm.provider !== 'openai') return null;
  return new OpenAiModelsProbe({ baseUrl: llm.baseUrl ?? OPENAI_BASE_URL, apiKey: llm.apiKey, timeoutMs: config.readinessTimeoutMs });
}

export interface ReadinessParts {
  /** Named `database`: the in-memory store's or PostgreSQL's check. */
  database: DependencyCheck;
  graph: GraphStatusProbe;
  model: ModelHealthProbe | null;
  /** The token verifier's provider, with identity on (AUTH_MODE=oidc). */
  identity: IdentityProviderHealth | null;
}

/**
 * Everything /v1/health/ready reports, in one place. READY_REQUIRED decides which failures
 * make it 503; the graph database and the model are remote and cached for READY_CACHE_MS (the
 * identity provider's keys are cached by the verifier, AUTH_JWKS_CACHE_MS).
 */
export function readinessChecks(config: Config, parts: ReadinessParts, clock: Clock): DependencyCheck[] {
  const { required, cacheMs } = config.readiness;
  const cached = (check: DependencyCheck) => new CachedDependencyCheck(check, cacheMs, clock);
  return [
    requiredAs(parts.database, required.includes('database')),
    cached(new GraphDatabaseCheck(parts.graph, required.includes('graph_database'))),
    cached(new LanguageModelCheck(parts.model, required.includes('language_model'))),
    new IdentityProviderCheck(parts.identity, required.includes('identity_provider')),
  ];
}

function requiredAs(check: DependencyCheck, required: boolean): DependencyCheck {
  return check.required === required ? check : { name: check.name, required, check: () => check.check() };
}

import type { GraphStatus } from '../../application/ports/graph-status-probe.js';
import type { Persona } from '../../domain/persona.js';
import type { Body } from './presenters.js';
import type * as out from './response-schemas.js';

/** The status, persona and voice answers, typed by their response schemas as in presenters.ts. */

/** GET /v1/health */
export function healthJson(health: { version: string; uptimeSeconds: number }): Body<typeof out.healthResponse> {
  return { status: 'ok', version: health.version, uptime_s: health.uptimeSeconds };
}

type Check = Body<typeof out.readinessResponse>['checks'][string];

/** GET /v1/health/ready (200 when ready, else 503 with the failing dependencies named). */
export function readinessJson(readiness: { ready: boolean; detail: string | null; checks: Record<string, Check> }): Body<typeof out.readinessResponse> {
  return readiness.ready
    ? { status: 'ok', checks: readiness.checks }
    : { status: 'error', detail: readiness.detail ?? 'a required dependency is unavailable', checks: readiness.checks };
}

/** GET /api/status/graphdb (503 when unreachable). */
export function graphStatusJson(graph: GraphStatus): Body<typeof out.graphStatusResponse> {
  switch (graph.state) {
    case 'connected':
      return { status: 'ok', connected: true, server_version: graph.serverVersion, latency_ms: graph.latencyMs };
    case 'disabled':
      return { status: 'disabled', connected: false, detail: graph.detail };
    case 'unreachable':
      return { status: 'error', connected: false, detail: graph.detail };
  }
}

/** GET /api/ai/traits */
export function personaJson(persona: Persona): Body<typeof out.personaResponse> {
  return {
    status: 'ok',
    name: persona.name,
    description: persona.description,
    traits: persona.traits,
    descriptors: persona.descriptors,
    speaking_style: persona.speakingStyle,
  };
}

/** GET /api/tts/voices: the voices' public fields only. */
export function voicesJson(list: { defaultVoice: string; voices: { id: string; name: string; language: string }[] }): Body<typeof out.voicesResponse> {
  return {
    status: 'ok',
    default_voice: list.defaultVoice,
    voices: list.voices.map(({ id, name, language }) => ({ id, name, language })),
  };
}

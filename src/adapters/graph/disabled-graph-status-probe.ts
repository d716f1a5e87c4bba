import type { GraphStatus, GraphStatusProbe } from '../../application/ports/graph-status-probe.js';

/** Used when no graph database is configured (NEO4J_URI unset). */
export class DisabledGraphStatusProbe implements GraphStatusProbe {
  async check(): Promise<GraphStatus> {
    return { state: 'disabled', detail: 'no graph database is configured (set NEO4J_URI)' };
  }
}

import type { GraphStatus, GraphStatusProbe } from '../ports/graph-status-probe.js';

/** GET /api/status/graphdb. */
export class GetGraphStatus {
  constructor(private readonly probe: GraphStatusProbe) {}

  execute(): Promise<GraphStatus> {
    return this.probe.check();
  }
}

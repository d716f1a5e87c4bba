import type { DependencyCheck, DependencyState } from '../../application/ports/dependency-check.js';
import type { GraphStatusProbe } from '../../application/ports/graph-status-probe.js';

/** The graph database as a readiness dependency: optional unless configured as required. */
export class GraphDatabaseCheck implements DependencyCheck {
  readonly name = 'graph_database';

  constructor(
    private readonly probe: GraphStatusProbe,
    readonly required: boolean,
  ) {}

  async check(): Promise<DependencyState> {
    const status = await this.probe.check();
    switch (status.state) {
      case 'connected':
        return { ok: true };
      case 'disabled':
        return { ok: true, disabled: true, detail: status.detail };
      case 'unreachable':
        return { ok: false, detail: status.detail };
    }
  }
}

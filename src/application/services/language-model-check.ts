import type { DependencyCheck, DependencyState } from '../ports/dependency-check.js';
import type { ModelHealthProbe } from '../ports/model-health-probe.js';

/**
 * The language model as a readiness dependency. Without a probe the model is the offline
 * assistant, which runs in the process: reported as ok, so `checks` always shows which model
 * answers, and requiring it (READY_REQUIRED) never fails.
 */
export class LanguageModelCheck implements DependencyCheck {
  readonly name = 'language_model';

  constructor(
    private readonly probe: ModelHealthProbe | null,
    readonly required: boolean,
  ) {}

  async check(): Promise<DependencyState> {
    return this.probe ? this.probe.ping() : { ok: true, detail: 'offline assistant (runs in the process)' };
  }
}

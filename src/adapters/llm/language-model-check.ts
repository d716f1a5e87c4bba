import type { DependencyCheck, DependencyState } from '../../application/ports/dependency-check.js';

/** A cheap question to a remote language model's server: is it there, and does it accept our key? */
export interface ModelHealthProbe {
  ping(): Promise<DependencyState>;
}

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

import type { DependencyCheck } from '../ports/dependency-check.js';

export interface CheckResult {
  status: 'ok' | 'error' | 'disabled';
  required: boolean;
  detail?: string;
}

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckResult>;
  /** The failing required dependencies, named, when not ready. */
  detail: string | null;
}

/** GET /v1/health/ready: every dependency checked at once, each bounded by `timeoutMs`. */
export class CheckReadiness {
  constructor(
    private readonly dependencies: DependencyCheck[],
    private readonly timeoutMs: number,
  ) {}

  async execute(): Promise<Readiness> {
    const results = await Promise.all(this.dependencies.map((dependency) => this.run(dependency)));
    const checks = Object.fromEntries(this.dependencies.map((d, i) => [d.name, results[i]!]));
    const failing = this.dependencies.filter((d, i) => d.required && results[i]!.status === 'error');
    const detail = failing.length ? `unavailable: ${failing.map((d) => d.name).join(', ')}` : null;
    return { ready: failing.length === 0, checks, detail };
  }

  private async run(dependency: DependencyCheck): Promise<CheckResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<{ ok: false; detail: string }>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${this.timeoutMs} ms` }), this.timeoutMs);
    });
    try {
      const state = await Promise.race([dependency.check(), timeout]);
      const status = !state.ok ? 'error' : state.disabled ? 'disabled' : 'ok';
      const result: CheckResult = { status, required: dependency.required };
      if (state.detail) result.detail = state.detail;
      return result;
    } catch (error) {
      return { status: 'error', required: dependency.required, detail: error instanceof Error ? error.message : 'check failed' };
    } finally {
      clearTimeout(timer);
    }
  }
}

import type { Clock } from '../ports/clock.js';

export interface Health {
  version: string;
  uptimeSeconds: number;
}

/** GET /v1/health: the process serves. */
export class GetHealth {
  constructor(
    private readonly clock: Clock,
    private readonly startedAt: Date,
    private readonly version: string,
  ) {}

  execute(): Health {
    const uptimeSeconds = Math.max(0, Math.floor((this.clock.now().getTime() - this.startedAt.getTime()) / 1000));
    return { version: this.version, uptimeSeconds };
  }
}

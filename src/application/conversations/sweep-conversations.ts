import type { Clock } from '../ports/clock.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { TitleSettings } from './conversation-titles.js';

export interface ConversationSettings {
  titles: TitleSettings;
  /** A temporary conversation is deleted this long after its last activity. */
  temporaryTtlMs: number;
  /** Any conversation is deleted this long after its last activity; null: kept (the default). */
  retentionMs: number | null;
  /** How often an instance tries to sweep (one sweeps at a time, across instances). */
  sweepIntervalMs: number;
}

/** Conversations at most deleted per statement: short statements, writers never held out for long. */
const BATCH = 500;

export interface Swept {
  temporary: number;
  retained: number;
  messages: number;
}

/** When a conversation, last active at `activeAt`, will be deleted: null when none of the rules applies. */
export function expiresAt(settings: ConversationSettings, activeAt: Date, temporary: boolean): Date | null {
  const after = [temporary ? settings.temporaryTtlMs : null, settings.retentionMs].filter((ms): ms is number => ms !== null);
  return after.length === 0 ? null : new Date(activeAt.getTime() + Math.min(...after));
}

/**
 * Deletes expired conversations — temporary ones after TEMPORARY_TTL_HOURS, every one after
 * RETENTION_DAYS when set — in batches, until none is left. The store makes one sweep run at a
 * time across instances and deletes each conversation once; `onSwept` is told the counts (metrics,
 * and a log line without user data).
 */
export class SweepConversations {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<Swept> | null = null;

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly settings: ConversationSettings,
    private readonly onSwept: (swept: Swept) => void = () => undefined,
  ) {}

  /** Sweeps now and every `sweepIntervalMs` until stopped. */
  start(): void {
    if (this.timer) return;
    const tick = () => void this.execute().catch(() => undefined);
    this.timer = setInterval(tick, this.settings.sweepIntervalMs);
    this.timer.unref();
    tick();
  }

  stop(): Promise<unknown> {
    clearInterval(this.timer);
    this.timer = undefined;
    return this.running ?? Promise.resolve();
  }

  /** One sweep, batch after batch, until a batch finds nothing (or another instance holds the sweep). */
  execute(): Promise<Swept> {
    this.running ??= this.sweep().finally(() => (this.running = null));
    return this.running;
  }

  private async sweep(): Promise<Swept> {
    const total: Swept = { temporary: 0, retained: 0, messages: 0 };
    for (;;) {
      const now = this.clock.now().getTime();
      const expiry = {
        temporaryBefore: new Date(now - this.settings.temporaryTtlMs),
        retainedBefore: this.settings.retentionMs === null ? null : new Date(now - this.settings.retentionMs),
        batch: BATCH,
      };
      const swept = await this.unitOfWork.run((r) => r.conversations.sweepExpired(expiry), { atomic: false });
      total.temporary += swept.temporary;
      total.retained += swept.retained;
      total.messages += swept.messages;
      if (swept.temporary + swept.retained < BATCH) break;
    }
    if (total.temporary + total.retained > 0) this.onSwept(total);
    return total;
  }
}

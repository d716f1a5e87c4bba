import type { UsageDelta, UsageLedger } from '../../../application/ports/usage-ledger.js';
import { addUsage, NO_USAGE, type UsageCounts, type UsageDay } from '../../../domain/usage.js';

/** Minutes kept after they end: a claim for an older one is for a minute long gone. */
const WINDOW_KEEP_MS = 10 * 60_000;

/** The usage ledger of one process (the in-memory store): exact, as only this process counts. */
export class InMemoryUsageLedger implements UsageLedger {
  private readonly byUserDay = new Map<string, Map<string, UsageCounts>>();
  private readonly windows = new Map<string, { window: number; granted: number }>();

  async sync(deltas: UsageDelta[], day: string, users: string[]): Promise<Map<string, UsageCounts>> {
    for (const { userId, day: deltaDay, ...counts } of deltas) {
      let days = this.byUserDay.get(userId);
      if (!days) this.byUserDay.set(userId, (days = new Map()));
      days.set(deltaDay, addUsage(days.get(deltaDay) ?? NO_USAGE, counts));
    }
    const totals = new Map<string, UsageCounts>();
    for (const userId of users) {
      const counts = this.byUserDay.get(userId)?.get(day);
      if (counts) totals.set(userId, { ...counts });
    }
    return totals;
  }

  async days(userId: string, from: string, to: string): Promise<UsageDay[]> {
    const days = [...(this.byUserDay.get(userId) ?? new Map<string, UsageCounts>())].filter(([date]) => date >= from && date <= to);
    return days.sort(([a], [b]) => (a < b ? -1 : 1)).map(([date, counts]) => ({ date, ...counts }));
  }

  async claimRequests(userId: string, window: number, wanted: number, limit: number): Promise<{ granted: number; total: number }> {
    const key = `${userId}\n${window}`;
    const entry = this.windows.get(key) ?? { window, granted: 0 };
    const granted = Math.max(0, Math.min(wanted, limit - entry.granted));
    entry.granted += granted;
    this.windows.set(key, entry);
    this.forgetBefore(window - WINDOW_KEEP_MS);
    return { granted, total: entry.granted };
  }

  async releaseRequests(releases: { userId: string; window: number; count: number }[]): Promise<void> {
    for (const { userId, window, count } of releases) {
      const entry = this.windows.get(`${userId}\n${window}`);
      if (entry) entry.granted = Math.max(0, entry.granted - count);
    }
  }

  async forgetUser(userId: string): Promise<number> {
    const days = this.byUserDay.get(userId)?.size ?? 0;
    this.byUserDay.delete(userId);
    for (const key of [...this.windows.keys()]) if (key.startsWith(`${userId}\n`)) this.windows.delete(key);
    return days;
  }

  /** Minutes are added in time order, so the old ones come first. */
  private forgetBefore(cutoff: number): void {
    for (const [key, entry] of this.windows) {
      if (entry.window >= cutoff) return;
      this.windows.delete(key);
    }
  }
}

import { FieldInvalidError } from '../../domain/errors.js';
import { addUsage, dayAfter, daysBetween, NO_USAGE, utcDay, type UsageCounts, type UsageDay } from '../../domain/usage.js';
import type { Clock } from '../ports/clock.js';
import type { UsageMeter } from '../usage/usage-meter.js';

/** The longest span one request may ask for. */
export const USAGE_MAX_DAYS = 366;

export interface GetUsageInput {
  userId: string;
  /** `YYYY-MM-DD` (UTC); default: `to`. */
  from?: string;
  /** `YYYY-MM-DD` (UTC); default: today. */
  to?: string;
}

export interface UserUsage {
  userId: string;
  /** Every day from `from` to `to`, oldest first, zeros where nothing was used. */
  days: UsageDay[];
  totals: UsageCounts;
}

/** GET /v1/usage: a user's usage per UTC day (every instance's counts in the store, and this one's not yet sent). */
export class GetUsage {
  constructor(
    private readonly meter: UsageMeter,
    private readonly clock: Clock,
  ) {}

  async execute(input: GetUsageInput): Promise<UserUsage> {
    const to = input.to ?? (input.from !== undefined && input.from > utcDay(this.clock.now()) ? input.from : utcDay(this.clock.now()));
    const from = input.from ?? to;
    if (from > to) throw new FieldInvalidError('from', 'must not be after to');
    if (dayAfter(from, USAGE_MAX_DAYS - 1) < to) throw new FieldInvalidError('to', `must be at most ${USAGE_MAX_DAYS} days from from`);
    const used = new Map((await this.meter.days(input.userId, from, to)).map((day) => [day.date, day]));
    const days = daysBetween(from, to).map((date) => used.get(date) ?? { date, ...NO_USAGE });
    return { userId: input.userId, days, totals: days.reduce<UsageCounts>((sum, day) => addUsage(sum, day), { ...NO_USAGE }) };
  }
}

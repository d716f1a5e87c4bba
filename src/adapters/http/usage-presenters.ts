import type { UserUsage } from '../../application/use-cases/get-usage.js';
import type { UsageCounts } from '../../domain/usage.js';
import type { Body } from './presenters.js';
import type * as out from './usage-schemas.js';

const countsJson = (counts: UsageCounts) => ({
  requests: counts.requests,
  input_tokens: counts.inputTokens,
  output_tokens: counts.outputTokens,
  speech_characters: counts.speechCharacters,
});

/** GET /v1/usage */
export function usageJson(usage: UserUsage): Body<typeof out.usageResponse> {
  return {
    status: 'ok',
    user_id: usage.userId,
    days: usage.days.map((day) => ({ date: day.date, ...countsJson(day) })),
    totals: countsJson(usage.totals),
  };
}

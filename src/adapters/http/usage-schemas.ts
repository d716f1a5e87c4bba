import { z } from 'zod';
import { clientId, says } from './schemas.js';

/** GET /v1/usage: its query and its answer (the presenter in usage-presenters.ts is typed by the answer). */

const DATE_RULE = 'must be a date YYYY-MM-DD';
const isDate = (value: string) => {
  const at = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(at) && new Date(at).toISOString().startsWith(value);
};
const date = () => z.string(says(DATE_RULE)).regex(/^\d{4}-\d{2}-\d{2}$/, DATE_RULE).refine(isDate, DATE_RULE);

export const usageQuery = z.object({
  user_id: clientId(),
  from: date().optional().meta({ description: 'First UTC day, YYYY-MM-DD (default: `to`)' }),
  to: date().optional().meta({ description: 'Last UTC day, YYYY-MM-DD (default: today; at most 366 days after `from`)' }),
});

const count = () => z.number().int().min(0);
const counts = {
  requests: count().meta({ description: 'requests let in on the chat, response and speech endpoints (a refused one, or one the client got wrong, counts nothing)' }),
  input_tokens: count().meta({ description: "tokens the model read: its own count, else an estimate" }),
  output_tokens: count().meta({ description: 'tokens the model wrote, a stopped reply\'s included: its own count, else an estimate' }),
  speech_characters: count().meta({ description: 'characters of speech answered' }),
};

export const usageCountsResponse = z.object(counts).meta({ id: 'UsageCounts' });

export const usageResponse = z
  .object({
    status: z.literal('ok'),
    user_id: z.string(),
    days: z.array(z.object({ date: z.string().meta({ description: 'UTC day, YYYY-MM-DD' }), ...counts })).meta({ description: 'every day from `from` to `to`, oldest first (zeros where nothing was used)' }),
    totals: usageCountsResponse,
  })
  .meta({ id: 'Usage' });

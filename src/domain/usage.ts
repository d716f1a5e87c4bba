import { codePointLength } from './text.js';

/**
 * What a user consumed: requests on the limited endpoints, the language model's tokens (its own
 * count, else an estimate) and characters of speech. Kept per user and UTC day.
 */
export interface UsageCounts {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  speechCharacters: number;
}

/** A day of a user's usage; `date` is the UTC day, `YYYY-MM-DD`. */
export interface UsageDay extends UsageCounts {
  date: string;
}

/** The user speech without a `user_id` is counted under (no client id is empty). */
export const NO_USER = '';

export const NO_USAGE: Readonly<UsageCounts> = Object.freeze({ requests: 0, inputTokens: 0, outputTokens: 0, speechCharacters: 0 });

export function addUsage(a: UsageCounts, b: UsageCounts): UsageCounts {
  return {
    requests: a.requests + b.requests,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    speechCharacters: a.speechCharacters + b.speechCharacters,
  };
}

export function tokensOf(counts: UsageCounts): number {
  return counts.inputTokens + counts.outputTokens;
}

const DAY_MS = 86_400_000;

/** The last day named, and the moments it spans: every request names its day, nearly always the same one. */
let lastDay = { name: '', from: 0, until: 0 };

/** The UTC day of a moment, `YYYY-MM-DD`. */
export function utcDay(at: Date): string {
  const time = at.getTime();
  if (time >= lastDay.from && time < lastDay.until) return lastDay.name;
  const name = at.toISOString().slice(0, 10);
  const from = Math.floor(time / DAY_MS) * DAY_MS;
  lastDay = { name, from, until: from + DAY_MS };
  return name;
}

/** Every UTC day from `from` to `to` (inclusive, `YYYY-MM-DD`), in order. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`), end = Date.parse(`${to}T00:00:00Z`); at <= end; at += DAY_MS) days.push(utcDay(new Date(at)));
  return days;
}

/** The day `count` days after `day` (before it when negative). */
export function dayAfter(day: string, count: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + count * DAY_MS));
}

/** Milliseconds from `at` to the next UTC midnight, when a day's token budget starts again. */
export function msUntilNextDay(at: Date): number {
  return DAY_MS - (at.getTime() % DAY_MS);
}

/**
 * Tokens of a text when the model gave no count (a reply stopped before its end, a model that
 * reports none): about four characters a token, OpenAI's rule of thumb for English, rounded up.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(codePointLength(text) / 4);
}

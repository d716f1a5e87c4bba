import type { Context } from 'koa';
import type { Admission } from '../../application/usage/usage-limits.js';

/** The limits' windows in seconds, as RateLimit-Policy's `w` says them. */
const WINDOW_S = { requests: 60, tokens: 86_400 } as const;

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/** A duration as OpenAI's x-ratelimit-reset-* headers write it: `59s`, `6m0s`, `1h2m3s`. */
export function openAiDuration(ms: number): string {
  const total = seconds(ms);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  return m > 0 ? `${m}m${s}s` : `${s}s`;
}

/**
 * The state of the user's limits on an answer of a limited endpoint, in both vocabularies
 * clients read: the IETF draft's structured fields (draft-ietf-httpapi-ratelimit-headers:
 * `RateLimit-Policy: "requests";q=60;w=60, "tokens";q=100000;w=86400;qu="tokens"` and
 * `RateLimit: "requests";r=59;t=42, …`; `tokens` is not a registered quota unit, so it is named)
 * and OpenAI's `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`. A refused request also
 * gets `Retry-After` in seconds: when the limit that refused it lets the user in again.
 */
export function setLimitHeaders(ctx: Context, admission: Admission): void {
  const { requests, tokens } = admission;
  if (!requests && !tokens) return;
  // Straight onto the response (Koa's set allocates per call): every answer of a limited route pays for these.
  const set = (name: string, value: string) => ctx.res.setHeader(name, value);
  const states: string[] = [];
  if (requests) {
    states.push(`"requests";r=${requests.remaining};t=${seconds(requests.resetMs)}`);
    set('x-ratelimit-limit-requests', String(requests.limit));
    set('x-ratelimit-remaining-requests', String(requests.remaining));
    set('x-ratelimit-reset-requests', openAiDuration(requests.resetMs));
  }
  if (tokens) {
    states.push(`"tokens";r=${tokens.remaining};t=${seconds(tokens.resetMs)}`);
    set('x-ratelimit-limit-tokens', String(tokens.limit));
    set('x-ratelimit-remaining-tokens', String(tokens.remaining));
    set('x-ratelimit-reset-tokens', openAiDuration(tokens.resetMs));
  }
  set('RateLimit-Policy', policyOf(requests?.limit ?? null, tokens?.limit ?? null));
  set('RateLimit', states.join(', '));
  if (admission.refused) set('Retry-After', String(Math.max(1, seconds(admission.refused.retryAfterMs))));
}

/** The policy line of a pair of limits, made once per pair. */
const policies = new Map<string, string>();
function policyOf(requests: number | null, tokens: number | null): string {
  const key = `${requests}/${tokens}`;
  let policy = policies.get(key);
  if (policy === undefined) {
    const items = [];
    if (requests !== null) items.push(`"requests";q=${requests};w=${WINDOW_S.requests}`);
    if (tokens !== null) items.push(`"tokens";q=${tokens};w=${WINDOW_S.tokens};qu="tokens"`);
    policy = items.join(', ');
    if (policies.size < 10_000) policies.set(key, policy);
  }
  return policy;
}

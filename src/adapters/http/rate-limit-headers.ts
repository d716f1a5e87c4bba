import type { Context } from 'koa';
import type { Admission, LimitState } from '../../application/usage/usage-limits.js';

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
  const policies: string[] = [];
  const states: string[] = [];
  const each = (name: 'requests' | 'tokens', state: LimitState | null) => {
    if (!state) return;
    policies.push(`"${name}";q=${state.limit};w=${WINDOW_S[name]}${name === 'tokens' ? ';qu="tokens"' : ''}`);
    states.push(`"${name}";r=${state.remaining};t=${seconds(state.resetMs)}`);
    ctx.set(`x-ratelimit-limit-${name}`, String(state.limit));
    ctx.set(`x-ratelimit-remaining-${name}`, String(state.remaining));
    ctx.set(`x-ratelimit-reset-${name}`, openAiDuration(state.resetMs));
  };
  each('requests', admission.requests);
  each('tokens', admission.tokens);
  if (policies.length === 0) return;
  ctx.set('RateLimit-Policy', policies.join(', '));
  ctx.set('RateLimit', states.join(', '));
  if (admission.refused) ctx.set('Retry-After', String(Math.max(1, seconds(admission.refused.retryAfterMs))));
}

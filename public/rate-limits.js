// The limits the service states on its answers of limited endpoints (chat, speech) while limits
// are on: OpenAI's x-ratelimit-* headers, as the last such answer gave them.

/**
 * A limit as the service's last answer on a limited endpoint (chat, speech) stated it in OpenAI's
 * `x-ratelimit-*` headers: the quota, what is left, and when it starts again (`6m0s`).
 * @typedef {{limit: number, remaining: number, reset: string}} RateLimit
 */

/** @type {{requests: RateLimit | null, tokens: RateLimit | null} | null} */
let rateLimits = null;

/** The limits the service stated last (null while limits are off, or before any limited request). */
export const lastRateLimits = () => rateLimits;

/** Keeps the limits a response states, if it states any. @param {Response} response */
export function noteRateLimits(response) {
  /** @param {'requests' | 'tokens'} name @returns {RateLimit | null} */
  const limit = (name) => {
    const quota = response.headers.get(`x-ratelimit-limit-${name}`);
    const remaining = response.headers.get(`x-ratelimit-remaining-${name}`);
    if (quota === null || remaining === null) return null;
    return { limit: Number(quota), remaining: Number(remaining), reset: response.headers.get(`x-ratelimit-reset-${name}`) ?? '' };
  };
  const stated = { requests: limit('requests'), tokens: limit('tokens') };
  if (stated.requests || stated.tokens) rateLimits = stated;
}

import type { RequestStep } from './steps.js';

/** Headers every response carries; pages that need more (the docs, the demo) set their own CSP. */
const HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
};

const HEADER_LIST = Object.entries(HEADERS);

/** Strict-Transport-Security: how long browsers must use HTTPS only, and whether for subdomains too. */
export interface HstsSettings {
  maxAgeS: number;
  includeSubDomains: boolean;
}

/**
 * The headers above, and `Strict-Transport-Security` on requests that came over HTTPS: to this
 * service's own TLS (whatever a proxy says), or through a trusted proxy that says the client used
 * https (`ctx.state.client`, set by clientOrigin). Browsers ignore HSTS over plain HTTP, and
 * sending it there would only mislead.
 */
export function securityHeaders(hsts?: HstsSettings): RequestStep {
  const strictTransport = hsts ? strictTransportSecurity(hsts) : undefined;
  return (ctx) => {
    for (const [name, value] of HEADER_LIST) ctx.res.setHeader(name, value);
    // ctx.secure is the socket's own TLS (Koa's app.proxy stays off).
    if (strictTransport && (ctx.secure || ctx.state.client?.protocol === 'https')) ctx.set('Strict-Transport-Security', strictTransport);
  };
}

/** The value of the Strict-Transport-Security header. */
export function strictTransportSecurity({ maxAgeS, includeSubDomains }: HstsSettings): string {
  return `max-age=${maxAgeS}${includeSubDomains ? '; includeSubDomains' : ''}`;
}

import { z } from 'zod';
import type { OidcVerifierSettings } from '../adapters/identity/oidc-token-verifier.js';
import { integer, optionalText } from './environment-fields.js';

/**
 * Signature algorithms a token may use: asymmetric ones only. Symmetric (HS*) algorithms would
 * let anyone holding the issuer's published key sign tokens, and `none` signs nothing.
 */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
export type SignatureAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];
/** The RSA and ECDSA families, which every OpenID Connect provider offers (RS256 is mandatory). */
const DEFAULT_ALGORITHMS: SignatureAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];

const list = (value: string) => value.split(',').map((item) => item.trim()).filter((item) => item !== '');

/** The identity settings, spread into the environment schema of config.ts. */
export const AUTH_ENVIRONMENT = {
  AUTH_MODE: z.enum(['none', 'oidc'], { error: 'must be "none" or "oidc"' }).default('none'),
  AUTH_ISSUER: z.url({ protocol: /^https?$/, error: 'must be the issuer\'s http:// or https:// URL, exactly as tokens name it in "iss"' }).optional(),
  AUTH_AUDIENCE: z
    .string()
    .transform(list)
    .pipe(z.array(z.string()).min(1, 'must name at least one audience'))
    .optional(),
  AUTH_ALGORITHMS: z
    .string()
    .transform(list)
    .pipe(z.array(z.enum(ASYMMETRIC_ALGORITHMS, { error: `must list algorithms among ${ASYMMETRIC_ALGORITHMS.join(', ')} (never HS* or none)` })).min(1, 'must list at least one algorithm'))
    .optional(),
  AUTH_CLOCK_SKEW_S: integer(0, 600).default(30),
  AUTH_USER_CLAIM: z
    .string()
    .trim()
    .regex(/^[\x21-\x7e]{1,128}$/, 'must be the name of a claim, e.g. sub, email or preferred_username')
    .default('sub'),
  AUTH_API_KEYS_FILE: optionalText,
  AUTH_JWKS_CACHE_MS: integer(1000, 86_400_000).default(600_000),
  AUTH_JWKS_COOLDOWN_MS: integer(0, 3_600_000).default(30_000),
  AUTH_TIMEOUT_MS: integer(100, 60_000).default(5000),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters (e.g. openssl rand -hex 32)').optional(),
};

type AuthEnvironment = z.output<z.ZodObject<typeof AUTH_ENVIRONMENT>>;

/** The OpenID Connect settings, as the token verifier takes them. */
export type OidcSettings = OidcVerifierSettings & { algorithms: SignatureAlgorithm[] };

export interface AuthConfig {
  /** Identity from bearer tokens; null is AUTH_MODE=none (the caller names the user). */
  oidc: OidcSettings | null;
  /** Static API keys for server-to-server callers (with AUTH_MODE=oidc). */
  apiKeysFile: string | undefined;
  /** The token GET /metrics requires, if any; independent of AUTH_MODE. Never logged. */
  metricsToken: string | undefined;
}

const OIDC_ONLY = ['AUTH_ISSUER', 'AUTH_AUDIENCE', 'AUTH_ALGORITHMS', 'AUTH_API_KEYS_FILE'] as const;

/** The identity settings, or the one line that says what is wrong with them. */
export function authConfigFrom(env: AuthEnvironment): AuthConfig | string {
  const base = { apiKeysFile: env.AUTH_API_KEYS_FILE, metricsToken: env.METRICS_TOKEN };
  if (env.AUTH_MODE === 'none') {
    // An operator who set these believes identity is on: say it is not, rather than serve openly.
    const stray = OIDC_ONLY.find((name) => env[name] !== undefined);
    if (stray) return `${stray} is set but AUTH_MODE is none: set AUTH_MODE=oidc to require identity (or unset ${stray})`;
    return { ...base, oidc: null };
  }
  if (env.AUTH_ISSUER === undefined) return 'AUTH_ISSUER is required when AUTH_MODE=oidc (the provider\'s issuer URL, e.g. https://idp.example.com/realms/main)';
  if (env.AUTH_AUDIENCE === undefined) return 'AUTH_AUDIENCE is required when AUTH_MODE=oidc (the audience tokens for this service carry in "aud")';
  return {
    ...base,
    oidc: {
      issuer: env.AUTH_ISSUER,
      audiences: env.AUTH_AUDIENCE,
      algorithms: env.AUTH_ALGORITHMS ?? DEFAULT_ALGORITHMS,
      clockSkewS: env.AUTH_CLOCK_SKEW_S,
      userClaim: env.AUTH_USER_CLAIM,
      jwksCacheMs: env.AUTH_JWKS_CACHE_MS,
      jwksCooldownMs: env.AUTH_JWKS_COOLDOWN_MS,
      timeoutMs: env.AUTH_TIMEOUT_MS,
    },
  };
}

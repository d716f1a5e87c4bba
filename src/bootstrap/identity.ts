import type { Logger } from 'pino';
import { ApiKeyFile, ApiKeysFileInvalidError } from '../adapters/identity/api-key-file.js';
import type { CredentialVerifier } from '../adapters/identity/credentials.js';
import type { IdentityProviderHealth } from '../adapters/identity/identity-provider-check.js';
import { OidcTokenVerifier } from '../adapters/identity/oidc-token-verifier.js';
import type { AuthConfig } from './auth-config.js';
import { ConfigInvalidError } from './config.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface Identity {
  /** The bearer credentials the service accepts: an API key from the file when one matches, else a token of the issuer. */
  credentials: CredentialVerifier;
  /** For readiness: whether the issuer's keys are at hand. */
  provider: IdentityProviderHealth;
}

/** Identity, or null when it is off (AUTH_MODE=none). A bad API keys file stops start-up with one line. */
export async function identityFor(auth: AuthConfig, logger: Logger): Promise<Identity | null> {
  if (auth.oidc === null) return null;
  const tokens = new OidcTokenVerifier(auth.oidc, logger);
  let apiKeys: ApiKeyFile | null = null;
  if (auth.apiKeysFile !== undefined) {
    try {
      apiKeys = await ApiKeyFile.load(auth.apiKeysFile);
    } catch (error) {
      if (error instanceof ApiKeysFileInvalidError) throw new ConfigInvalidError(`invalid configuration: AUTH_API_KEYS_FILE: ${error.message}`);
      throw error;
    }
  }
  const issuer = new URL(auth.oidc.issuer);
  if (issuer.protocol === 'http:' && !LOOPBACK.has(issuer.hostname)) {
    logger.warn({ issuer: auth.oidc.issuer }, 'identity: the issuer is reached over plain http, so its keys could be forged on the way; use https');
  }
  logger.info(
    { issuer: auth.oidc.issuer, audiences: auth.oidc.audiences, userClaim: auth.oidc.userClaim, apiKeys: apiKeys?.size ?? 0 },
    `identity: bearer tokens of ${auth.oidc.issuer}${apiKeys ? ` and ${apiKeys.size} API key(s)` : ''}`,
  );
  return { credentials: { verify: async (credential) => apiKeys?.match(credential) ?? tokens.verify(credential) }, provider: tokens };
}

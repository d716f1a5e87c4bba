import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type RemoteJWKSet } from 'jose';
import type { Logger } from 'pino';
import type { DependencyState } from '../../application/ports/dependency-check.js';
import { DependencyUnavailableError } from '../../domain/errors.js';
import { isValidClientId } from '../../domain/ids.js';
import { CredentialRejectedError, type CredentialVerifier, type Identity } from './credentials.js';
import { discoverProvider, ProviderMetadataError } from './oidc-discovery.js';

export interface OidcVerifierSettings {
  /** Compared exactly with the tokens' `iss`. */
  issuer: string;
  audiences: string[];
  /** Asymmetric algorithms only (the settings refuse HS* and none). */
  algorithms: readonly string[];
  clockSkewS: number;
  userClaim: string;
  jwksCacheMs: number;
  jwksCooldownMs: number;
  timeoutMs: number;
}

/** Three base64url parts, the signature not empty: an unsigned token (`alg: none`) goes no further. */
const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]+$/;
/** After the provider failed to answer, requests are turned away this long before it is asked again. */
const RETRY_AFTER_FAILURE_MS = 1000;
/** jose's errors that mean the keys could not be fetched, not that the token is bad. */
const PROVIDER_FAULTS = new Set(['ERR_JOSE_GENERIC', 'ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID']);
const UNAVAILABLE = 'the identity provider is unavailable; try again shortly';
/** Unpaired UTF-16 surrogates cannot be stored as UTF-8: no user id may hold one. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Bearer JSON Web Tokens of one OpenID Connect issuer, verified with `jose`: the signature by a
 * key the issuer publishes (found through discovery, cached, fetched again on rotation: a token
 * naming an unknown `kid` causes one refetch at most every `jwksCooldownMs`), then `iss`, `aud`,
 * `exp` (required) and `nbf`, with `clockSkewS` of tolerance. When the provider cannot be reached,
 * keys fetched before keep working; without them requests get 503, and the provider is asked
 * again at most once a second, so a flood of requests never becomes a flood of fetches.
 */
export class OidcTokenVerifier implements CredentialVerifier {
  private keys: JWTVerifyGetKey | undefined;
  private remote: RemoteJWKSet | undefined;
  private discovery: Promise<JWTVerifyGetKey> | undefined;
  private failedAt = Number.NEGATIVE_INFINITY;
  /** Why the provider last failed, for readiness. */
  private lastFailure = 'the identity provider has not been asked yet';

  constructor(
    private readonly settings: OidcVerifierSettings,
    private readonly logger: Logger,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async verify(token: string): Promise<Identity> {
    if (!COMPACT_JWS.test(token)) throw new CredentialRejectedError('the token is not accepted');
    const keys = this.keys ?? (await this.discover());
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.settings.issuer,
        audience: this.settings.audiences,
        algorithms: [...this.settings.algorithms],
        clockTolerance: this.settings.clockSkewS,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw rejectionFor(error);
    }
    const user = payload[this.settings.userClaim];
    if (!isValidClientId(user) || LONE_SURROGATE.test(user)) throw new CredentialRejectedError('the token names no usable user');
    return { userId: user, method: 'token' };
  }

  /** The issuer's key set, found once through discovery; a failure is retried by a later request. */
  private discover(): Promise<JWTVerifyGetKey> {
    this.refuseWhileFailing();
    this.discovery ??= discoverProvider(this.settings.issuer, this.settings.timeoutMs, this.fetchImpl).then(
      ({ jwksUri }) => {
        const remote = createRemoteJWKSet(jwksUri, {
          timeoutDuration: this.settings.timeoutMs,
          cooldownDuration: this.settings.jwksCooldownMs,
          cacheMaxAge: this.settings.jwksCacheMs,
        });
        this.remote = remote;
        this.keys = this.resilient(remote);
        return this.keys;
      },
      (error: unknown) => {
        this.discovery = undefined;
        throw this.providerFailed(error);
      },
    );
    return this.discovery;
  }

  /**
   * Readiness: ok while the issuer's keys are fresh in the cache, else once they are fetched
   * (discovery first, the first time); when they cannot be, ok still if keys fetched before are
   * there to use, else why not. Answers within `timeoutMs`, and asks the provider no more often
   * than requests do (once a second while it fails).
   */
  async providerState(): Promise<DependencyState> {
    if (this.remote?.fresh) return { ok: true };
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`the identity provider did not answer within ${this.settings.timeoutMs} ms`), this.settings.timeoutMs);
    });
    const failure = await Promise.race([this.fetchKeys().then(() => null, () => this.lastFailure), timedOut]).finally(() => clearTimeout(timer));
    if (failure === null) return { ok: true };
    if (this.remote?.jwks()) return { ok: true, detail: `${failure}; the keys fetched before are used meanwhile` };
    return { ok: false, detail: failure };
  }

  private async fetchKeys(): Promise<void> {
    if (!this.remote) await this.discover();
    this.refuseWhileFailing();
    try {
      await this.remote!.reload();
    } catch (error) {
      throw this.providerFailed(error);
    }
  }

  /** The remote key set, with its failures turned into 503s, and the last keys used while the provider is away. */
  private resilient(remote: ReturnType<typeof createRemoteJWKSet>): JWTVerifyGetKey {
    return async (header, token) => {
      const stale = remote.jwks();
      const lastKnown = () => createLocalJWKSet(stale!)(header, token);
      if (Date.now() < this.failedAt + RETRY_AFTER_FAILURE_MS) {
        if (stale) return lastKnown();
        throw new DependencyUnavailableError(UNAVAILABLE);
      }
      try {
        return await remote(header, token);
      } catch (error) {
        if (error instanceof errors.JOSEError && !PROVIDER_FAULTS.has(error.code)) throw error; // the token's fault
        const unavailable = this.providerFailed(error);
        if (stale) return lastKnown();
        throw unavailable;
      }
    };
  }

  private refuseWhileFailing(): void {
    if (Date.now() < this.failedAt + RETRY_AFTER_FAILURE_MS) throw new DependencyUnavailableError(UNAVAILABLE);
  }

  private providerFailed(error: unknown): DependencyUnavailableError {
    this.failedAt = Date.now();
    const reason = error instanceof ProviderMetadataError ? error.message : `its keys could not be fetched (${(error as Error)?.message ?? 'error'})`;
    this.lastFailure = reason;
    this.logger.warn({ issuer: this.settings.issuer }, `identity provider unavailable: ${reason}`);
    return new DependencyUnavailableError(UNAVAILABLE);
  }
}

/** What the client is told of a refused token: the standard reasons, never why a signature failed. */
function rejectionFor(error: unknown): Error {
  if (error instanceof DependencyUnavailableError) return error;
  if (error instanceof errors.JWTExpired) return new CredentialRejectedError('the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return new CredentialRejectedError(`the token has no ${error.claim} claim`);
    if (error.claim === 'nbf') return new CredentialRejectedError('the token is not valid yet');
    if (error.claim === 'iss') return new CredentialRejectedError('the token was issued by another issuer');
    if (error.claim === 'aud') return new CredentialRejectedError('the token is meant for another audience');
  }
  if (error instanceof errors.JOSEError) return new CredentialRejectedError('the token could not be verified');
  return error as Error; // not the token's fault nor the provider's: an unexpected fault, logged as one
}

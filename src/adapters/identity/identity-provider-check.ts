import type { DependencyCheck, DependencyState } from '../../application/ports/dependency-check.js';

/** What readiness asks of the token verifier: can it verify tokens now (OidcTokenVerifier.providerState)? */
export interface IdentityProviderHealth {
  providerState(): Promise<DependencyState>;
}

/**
 * The identity provider as a readiness dependency (AUTH_MODE=oidc): ok while its keys are at
 * hand, an error when they cannot be had, since every authenticated request would then get 503.
 * Reported as disabled when identity is off. Not cached: the verifier already asks the provider
 * at most once a second while it fails, and not at all while its keys are fresh.
 */
export class IdentityProviderCheck implements DependencyCheck {
  readonly name = 'identity_provider';

  constructor(
    private readonly provider: IdentityProviderHealth | null,
    readonly required: boolean,
  ) {}

  async check(): Promise<DependencyState> {
    return this.provider ? this.provider.providerState() : { ok: true, disabled: true, detail: 'identity is off (AUTH_MODE=none)' };
  }
}

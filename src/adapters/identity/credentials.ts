/**
 * Who is asking, as the HTTP edge learns it from a bearer credential. The application never
 * sees this: routes hand it the user id, as they did when the caller named the user.
 */
export interface Identity {
  /** The user every request of this caller acts as; null for an API key allowed to act for any user (the request names the user). */
  userId: string | null;
  /** How the caller proved who it is: a token or an API key (never the credential itself). */
  method: 'token' | 'api-key';
}

/** Checks a bearer credential: a JSON Web Token or an API key. */
export interface CredentialVerifier {
  /** The caller's identity; throws CredentialRejectedError, or DependencyUnavailableError when the provider cannot be asked. */
  verify(credential: string): Promise<Identity>;
}

/**
 * A credential that proves nothing. `description` goes to the client in `error_description`
 * (RFC 6750): a fixed phrase that never says why a signature failed.
 */
export class CredentialRejectedError extends Error {
  constructor(readonly description: string) {
    super(description);
  }
}

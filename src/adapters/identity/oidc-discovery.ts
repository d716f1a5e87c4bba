/** What this service needs of an OpenID Connect provider's discovery document. */
export interface ProviderMetadata {
  issuer: string;
  jwksUri: URL;
}

/** A provider that cannot be asked, or answers what no provider should; the message is for the operator's log. */
export class ProviderMetadataError extends Error {}

/**
 * Fetches `<issuer>/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §4): its
 * `issuer` must be the configured one exactly (§4.3, so a mix-up between providers cannot pass),
 * and `jwks_uri` an http(s) URL, https when the issuer is.
 */
export async function discoverProvider(issuer: string, timeoutMs: number, fetchImpl: typeof fetch = fetch): Promise<ProviderMetadata> {
  const url = `${issuer.replace(/\/+$/u, '')}/.well-known/openid-configuration`;
  let response: Response;
  try {
    response = await fetchImpl(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    throw new ProviderMetadataError(`${url} ${timedOut ? `did not answer within ${timeoutMs} ms` : 'could not be reached'}`);
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new ProviderMetadataError(`${url} answered ${response.status}`);
  }
  let document: unknown;
  try {
    document = await response.json();
  } catch {
    throw new ProviderMetadataError(`${url} did not answer JSON`);
  }
  const { issuer: named, jwks_uri: jwksUri } = (typeof document === 'object' && document !== null ? document : {}) as Record<string, unknown>;
  if (named !== issuer) throw new ProviderMetadataError(`${url} names the issuer ${JSON.stringify(named)}, not ${JSON.stringify(issuer)}`);
  let keys: URL;
  try {
    keys = new URL(String(jwksUri));
  } catch {
    throw new ProviderMetadataError(`${url} has no usable jwks_uri`);
  }
  const secureIssuer = new URL(issuer).protocol === 'https:';
  if (keys.protocol !== 'https:' && (secureIssuer || keys.protocol !== 'http:')) {
    throw new ProviderMetadataError(`${url} has a jwks_uri that is not ${secureIssuer ? 'https' : 'http(s)'}`);
  }
  return { issuer, jwksUri: keys };
}

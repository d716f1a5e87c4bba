import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256' | 'PS256' | 'ES384';
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export interface TokenOptions {
  /** The key to sign with; the first published one by default. */
  key?: SigningKey;
  issuer?: string;
  audience?: string | string[];
  /** Seconds from now; negative is in the past. Default 600. */
  expiresInS?: number | null;
  /** Seconds from now that the token becomes valid (`nbf`); unset by default. */
  notBeforeS?: number;
  /** Extra protected-header fields (a `kid` of another key, say). */
  header?: Record<string, unknown>;
}

/**
 * A local OpenID Connect provider, enough for bearer tokens: the discovery document, its JWKS
 * (keys can be published and withdrawn while it runs, as a rotation does), and tokens signed by
 * its keys. For the tests, and for trying identity by hand (scripts/identity-provider.ts).
 */
export class LocalIdentityProvider {
  readonly audience = 'assistant-api';
  issuer = '';
  /** Requests answered: all of them (failed ones too), and the discovery documents and key sets served. */
  readonly fetches = { all: 0, discovery: 0, jwks: 0 };
  /** When set, every request is answered with this status (a provider that is down). */
  failWith: number | null = null;
  /** When true, requests are accepted and never answered (a provider that hangs); stop() ends them. */
  silent = false;
  /**
   * For trying by hand only (scripts/identity-provider.ts): `GET <issuer>/dev-token?sub=alice`
   * answers a token for anyone who asks. Never on in the tests.
   */
  serveDevTokens = false;
  private published: SigningKey[] = [];
  private nextKid = 1;

  private constructor(private readonly server: Server) {}

  static async start(port = 0, host = '127.0.0.1'): Promise<LocalIdentityProvider> {
    // The issuer names the address it was started on, so the service must reach it there.
    const server = createServer();
    const provider = new LocalIdentityProvider(server);
    server.on('request', (req, res) => provider.handle(req, res));
    server.listen(port, host);
    await once(server, 'listening');
    const address = server.address() as AddressInfo;
    provider.issuer = `http://${host}:${address.port}/realms/test`;
    await provider.publish(await provider.newKey());
    return provider;
  }

  /** A new signing key, not yet published. */
  async newKey(alg: SigningKey['alg'] = 'RS256'): Promise<SigningKey> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const kid = `key-${this.nextKid++}`;
    return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
  }

  async publish(...keys: SigningKey[]): Promise<void> {
    this.published.push(...keys);
  }

  withdraw(key: SigningKey): void {
    this.published = this.published.filter((k) => k !== key);
  }

  get keys(): readonly SigningKey[] {
    return this.published;
  }

  /** A signed token for `sub` (or the claims given). */
  async token(claims: JWTPayload | string, options: TokenOptions = {}): Promise<string> {
    const key = options.key ?? this.published[0]!;
    const payload = typeof claims === 'string' ? { sub: claims } : claims;
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT(payload)
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...options.header })
      .setIssuer(options.issuer ?? this.issuer)
      .setAudience(options.audience ?? this.audience)
      .setIssuedAt(now);
    if (options.expiresInS !== null) jwt.setExpirationTime(now + (options.expiresInS ?? 600));
    if (options.notBeforeS !== undefined) jwt.setNotBefore(now + options.notBeforeS);
    return jwt.sign(key.privateKey);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const issuerPath = new URL(this.issuer).pathname;
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    this.fetches.all++;
    if (this.silent) return;
    if (this.failWith !== null) return send(this.failWith, { error: 'unavailable' });
    if (path === `${issuerPath}/.well-known/openid-configuration`) {
      this.fetches.discovery++;
      return send(200, {
        issuer: this.issuer,
        jwks_uri: `${this.issuer}/protocol/openid-connect/certs`,
        id_token_signing_alg_values_supported: ['RS256', 'ES256'],
      });
    }
    if (path === `${issuerPath}/protocol/openid-connect/certs`) {
      this.fetches.jwks++;
      return send(200, { keys: this.published.map((key) => key.publicJwk) });
    }
    if (this.serveDevTokens && path === `${issuerPath}/dev-token`) {
      const ttl = Number(url.searchParams.get('ttl') ?? 3600);
      void this.token(url.searchParams.get('sub') ?? 'alice', { expiresInS: Number.isFinite(ttl) ? ttl : 3600 }).then((token) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`${token}\n`);
      });
      return;
    }
    send(404, { error: 'not_found' });
  }
}

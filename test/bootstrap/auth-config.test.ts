import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigInvalidError, loadConfig } from '../../src/bootstrap/config.js';
import { startService } from '../../src/bootstrap/server.js';

const OIDC = { AUTH_MODE: 'oidc', AUTH_ISSUER: 'https://idp.example.com/realms/main', AUTH_AUDIENCE: 'assistant-api' };
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('identity settings', () => {
  it('default: identity off, /metrics open', () => {
    expect(loadConfig({}).auth).to.deep.equal({ oidc: null, apiKeysFile: undefined, metricsToken: undefined });
  });

  it('AUTH_MODE=oidc: RSA and ECDSA algorithms, 30 s of clock skew, the sub claim, keys cached 10 min, refetched at most every 30 s', () => {
    expect(loadConfig(OIDC).auth.oidc).to.deep.equal({
      issuer: 'https://idp.example.com/realms/main',
      audiences: ['assistant-api'],
      algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'],
      clockSkewS: 30,
      userClaim: 'sub',
      jwksCacheMs: 600_000,
      jwksCooldownMs: 30_000,
      timeoutMs: 5000,
    });
  });

  it('reads every identity setting', () => {
    const auth = loadConfig({
      ...OIDC,
      AUTH_ISSUER: 'https://tenant.auth0.example.com/',
      AUTH_AUDIENCE: 'api-one, api-two',
      AUTH_ALGORITHMS: 'ES256,EdDSA',
      AUTH_CLOCK_SKEW_S: '5',
      AUTH_USER_CLAIM: 'preferred_username',
      AUTH_API_KEYS_FILE: '/etc/assistant/api-keys.json',
      AUTH_JWKS_CACHE_MS: '60000',
      AUTH_JWKS_COOLDOWN_MS: '1000',
      AUTH_TIMEOUT_MS: '2000',
      METRICS_TOKEN: 'a-long-enough-metrics-token',
    }).auth;
    expect(auth.oidc).to.deep.include({ issuer: 'https://tenant.auth0.example.com/', audiences: ['api-one', 'api-two'], algorithms: ['ES256', 'EdDSA'], clockSkewS: 5 });
    expect(auth.oidc).to.deep.include({ userClaim: 'preferred_username', jwksCacheMs: 60_000, jwksCooldownMs: 1000, timeoutMs: 2000 });
    expect(auth).to.deep.include({ apiKeysFile: '/etc/assistant/api-keys.json', metricsToken: 'a-long-enough-metrics-token' });
  });

  for (const [environment, line] of [
    [{ AUTH_MODE: 'jwt' }, 'AUTH_MODE must be "none" or "oidc" (got "jwt")'],
    [{ AUTH_MODE: 'oidc' }, 'AUTH_ISSUER is required when AUTH_MODE=oidc'],
    [{ AUTH_MODE: 'oidc', AUTH_ISSUER: OIDC.AUTH_ISSUER }, 'AUTH_AUDIENCE is required when AUTH_MODE=oidc'],
    [{ ...OIDC, AUTH_ISSUER: 'idp.example.com' }, 'AUTH_ISSUER must be the issuer\'s http:// or https:// URL'],
    [{ ...OIDC, AUTH_ALGORITHMS: 'RS256,HS256' }, 'AUTH_ALGORITHMS must list algorithms among RS256'],
    [{ ...OIDC, AUTH_ALGORITHMS: 'none' }, 'AUTH_ALGORITHMS must list algorithms among'],
    [{ ...OIDC, AUTH_AUDIENCE: ' , ' }, 'AUTH_AUDIENCE must name at least one audience'],
    [{ ...OIDC, AUTH_CLOCK_SKEW_S: '-1' }, 'AUTH_CLOCK_SKEW_S must be an integer from 0 to 600'],
    [{ ...OIDC, AUTH_USER_CLAIM: 'two words' }, 'AUTH_USER_CLAIM must be the name of a claim'],
    [{ AUTH_ISSUER: OIDC.AUTH_ISSUER }, 'AUTH_ISSUER is set but AUTH_MODE is none: set AUTH_MODE=oidc to require identity'],
    [{ AUTH_API_KEYS_FILE: '/keys.json' }, 'AUTH_API_KEYS_FILE is set but AUTH_MODE is none'],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN must be at least 16 characters'],
  ] as const) {
    it(`refuses ${JSON.stringify(environment)} with one line`, () => {
      expect(() => loadConfig(environment)).to.throw(ConfigInvalidError, new RegExp(`^invalid configuration: ${escape(line)}`));
    });
  }

  it('never echoes METRICS_TOKEN', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'secret' })).to.throw(ConfigInvalidError, /\(got a hidden value\)$/);
  });

  it('an unusable API keys file stops start-up with one line that shows no hash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-keys-'));
    const write = (name: string, content: string) => {
      writeFileSync(join(dir, name), content);
      return join(dir, name);
    };
    const hash = `sha256:${'ab'.repeat(32)}`;
    for (const [file, line] of [
      [join(dir, 'missing.json'), 'the API keys file cannot be read (ENOENT)'],
      [write('bad.json', '{'), 'the API keys file is not valid JSON'],
      [write('plain.json', JSON.stringify({ keys: [{ hash: 'my-secret-key', user_id: 'alice' }] })), 'the API keys file is invalid at keys.0'],
      [write('neither.json', JSON.stringify({ keys: [{ hash }] })), 'the API keys file is invalid at keys.0'],
      [write('twice.json', JSON.stringify({ keys: [{ hash, user_id: 'a' }, { hash, any_user: true }] })), 'the API keys file lists the same key twice'],
    ] as const) {
      const config = loadConfig({ ...OIDC, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', AUTH_API_KEYS_FILE: file });
      const error = await startService(config).then(
        (service) => service.stop().then(() => undefined),
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(ConfigInvalidError);
      expect((error as Error).message).to.match(new RegExp(`^invalid configuration: AUTH_API_KEYS_FILE: ${escape(line)}`));
      expect((error as Error).message).not.to.include('abab');
    }
  });
});

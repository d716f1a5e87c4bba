import { expect } from 'chai';
import { base64url, exportSPKI, generateKeyPair, importJWK, SignJWT, type CryptoKey } from 'jose';
import type { CallResult } from '../support/service.js';
import { startIdentityTestService, type IdentityTestService } from '../support/identity-service.js';
import { uid } from '../support/ids.js';

/** Tokens of every kind an attacker or a broken client sends, against a service with identity on. */
describe('identity: bearer tokens (AUTH_MODE=oidc)', () => {
  let service: IdentityTestService;
  const COOLDOWN_MS = 1000;
  const pastCooldown = () => new Promise((resolve) => setTimeout(resolve, COOLDOWN_MS + 50));
  before(async () => {
    service = await startIdentityTestService({ AUTH_JWKS_COOLDOWN_MS: String(COOLDOWN_MS), AUTH_CLOCK_SKEW_S: '5' });
  });
  after(() => service?.stop());

  const list = (authorization?: string) =>
    service.bare('GET', '/api/chat/conversations', authorization === undefined ? {} : { headers: { authorization } });
  const withToken = (token: string) => list(`Bearer ${token}`);

  function expectRefused(res: CallResult, description: string): void {
    expect(res.status, res.text).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.equal(`Bearer error="invalid_token", error_description="${description}"`);
    expect(res.json).to.deep.equal({ detail: `invalid token: ${description}`, status: 'error' });
  }

  it('a valid token is accepted, and its sub is the user', async () => {
    const user = uid('alice');
    const token = await service.provider.token(user);
    const chat = await service.bare('POST', '/v1/chat', { body: { text: 'hello' }, headers: { authorization: `Bearer ${token}` } });
    expect(chat.status).to.equal(200);
    const listed = await withToken(token);
    expect(listed.status).to.equal(200);
    expect(listed.json.conversations.map((c: { conversation_id: string }) => c.conversation_id)).to.deep.equal([chat.json.conversation_id]);
    const loaded = await service.bare('POST', '/api/chat/loadMessages', { body: { conversation_id: chat.json.conversation_id }, headers: { authorization: `Bearer ${token}` } });
    expect(loaded.json.messages.map((m: { user_id: string }) => m.user_id)).to.deep.equal([user, user]);
  });

  it('the scheme is case-insensitive and an ES256 key works as well as RS256', async () => {
    const key = await service.provider.newKey('ES256');
    await service.provider.publish(key);
    await pastCooldown();
    expect((await list(`bearer ${await service.provider.token(uid('u'), { key })}`)).status).to.equal(200);
  });

  it('no credential: 401 with a bare challenge; another scheme counts as none', async () => {
    for (const authorization of [undefined, 'Basic dXNlcjpwYXNz', '']) {
      const res = await list(authorization);
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.equal('Bearer');
      expect(res.json).to.deep.equal({ detail: 'authentication required: send Authorization: Bearer <token>', status: 'error' });
    }
  });

  it('a malformed credential: 401 invalid_token', async () => {
    expectRefused(await list('Bearer'), 'the token is malformed');
    expectRefused(await list('Bearer two words'), 'the token is malformed');
    expectRefused(await list('Bearer not-a-jwt'), 'the token is not accepted');
  });

  it('an expired token is refused; one expired within the allowed clock skew is not', async () => {
    expectRefused(await withToken(await service.provider.token(uid('u'), { expiresInS: -60 })), 'the token has expired');
    expect((await withToken(await service.provider.token(uid('u'), { expiresInS: -2 }))).status).to.equal(200);
  });

  it('a token not yet valid (nbf) is refused', async () => {
    expectRefused(await withToken(await service.provider.token(uid('u'), { notBeforeS: 60 })), 'the token is not valid yet');
  });

  it('a token without exp is refused', async () => {
    expectRefused(await withToken(await service.provider.token(uid('u'), { expiresInS: null })), 'the token has no exp claim');
  });

  it('another issuer, or another audience, is refused even when the signature is good', async () => {
    expectRefused(await withToken(await service.provider.token(uid('u'), { issuer: 'https://evil.example.com/' })), 'the token was issued by another issuer');
    expectRefused(await withToken(await service.provider.token(uid('u'), { audience: 'some-other-api' })), 'the token is meant for another audience');
  });

  it('alg "none" is refused, signed or not', async () => {
    const part = (value: object) => base64url.encode(JSON.stringify(value));
    const claims = { sub: uid('u'), iss: service.provider.issuer, aud: service.provider.audience, exp: Math.floor(Date.now() / 1000) + 600 };
    expectRefused(await withToken(`${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`), 'the token is not accepted');
    expectRefused(await withToken(`${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.c2lnbmF0dXJl`), 'the token could not be verified');
  });

  it('an HS256 token whose secret is the public key is refused', async () => {
    const key = service.provider.keys[0]!;
    const pem = await exportSPKI((await importJWK(key.publicJwk, key.alg)) as CryptoKey);
    for (const secret of [pem, JSON.stringify(key.publicJwk)]) {
      const forged = await new SignJWT({ sub: uid('u') })
        .setProtectedHeader({ alg: 'HS256', kid: key.kid })
        .setIssuer(service.provider.issuer)
        .setAudience(service.provider.audience)
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(secret));
      expectRefused(await withToken(forged), 'the token could not be verified');
    }
  });

  it('a token signed by a key the issuer does not publish, naming a published kid, is refused', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const published = service.provider.keys[0]!;
    const forged = await service.provider.token(uid('u'), { key: { ...published, privateKey } });
    expectRefused(await withToken(forged), 'the token could not be verified');
  });

  it('a token whose sub is no usable user id is refused', async () => {
    expectRefused(await withToken(await service.provider.token({ name: 'no sub' })), 'the token names no usable user');
    expectRefused(await withToken(await service.provider.token('x'.repeat(129))), 'the token names no usable user');
    expectRefused(await withToken(await service.provider.token('a\u0000b')), 'the token names no usable user');
  });

  it('an unknown kid makes the keys be fetched again: a rotated-in key is accepted; refetches are rate-limited', async () => {
    const stranger = await service.provider.newKey();
    const strangers = await Promise.all(Array.from({ length: 20 }, () => service.provider.token(uid('u'), { key: stranger })));
    const fresh = await service.provider.newKey();
    const freshToken = await service.provider.token(uid('u'), { key: fresh });
    await service.provider.publish(fresh);
    await pastCooldown();
    const before = service.provider.fetches.jwks;
    expect((await withToken(freshToken)).status).to.equal(200);
    expect(service.provider.fetches.jwks).to.equal(before + 1);

    // Within the cooldown, a flood of tokens naming keys nobody publishes causes no fetch at all.
    for (const res of await Promise.all(strangers.map(withToken))) expectRefused(res, 'the token could not be verified');
    expect(service.provider.fetches.jwks).to.equal(before + 1);

    // A withdrawn key stops working once the keys are fetched again (here: after the cooldown, for another unknown kid).
    const old = service.provider.keys[0]!;
    const oldToken = await service.provider.token(uid('u'), { key: old });
    expect((await withToken(oldToken)).status).to.equal(200);
    service.provider.withdraw(old);
    await pastCooldown();
    expectRefused(await withToken(strangers[0]!), 'the token could not be verified');
    expect(service.provider.fetches.jwks).to.equal(before + 2);
    expectRefused(await withToken(oldToken), 'the token could not be verified');
  });
});

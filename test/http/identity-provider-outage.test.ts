import { expect } from 'chai';
import { startIdentityTestService, type IdentityTestService } from '../support/identity-service.js';
import { uid } from '../support/ids.js';

const UNAVAILABLE = { detail: 'the identity provider is unavailable; try again shortly', status: 'error' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The provider's discovery document and keys are fetched by the service: what happens when they cannot be. */
describe('identity: the provider unreachable', () => {
  let service: IdentityTestService;
  beforeEach(async () => {
    service = await startIdentityTestService({ AUTH_JWKS_CACHE_MS: '1000', AUTH_TIMEOUT_MS: '1000' });
  });
  afterEach(() => service.stop());

  const list = async (token: string) => service.bare('GET', '/api/chat/conversations', { headers: { authorization: `Bearer ${token}` } });

  it('before any key is known: 503 with the JSON error, at most one fetch a second, and back once it answers', async () => {
    const token = await service.provider.token(uid('u'));
    service.provider.failWith = 503;
    for (let i = 0; i < 10; i++) {
      const res = await list(token);
      expect(res.status).to.equal(503);
      expect(res.json).to.deep.equal(UNAVAILABLE);
    }
    expect(service.provider.fetches.all).to.equal(1); // the first request asked; the next nine, within a second, did not
    service.provider.failWith = null;
    await pause(1100);
    expect((await list(token)).status).to.equal(200);
    expect(service.provider.fetches.discovery).to.equal(1);
  });

  it("a discovery document naming another issuer is 503 too: an impostor's keys are never used", async () => {
    const token = await service.provider.token(uid('u'));
    const original = service.provider.issuer;
    service.provider.issuer = 'https://impostor.example.com';
    expect((await list(token)).json).to.deep.equal(UNAVAILABLE);
    expect(service.provider.fetches.jwks).to.equal(0);
    service.provider.issuer = original;
    await pause(1100);
    expect((await list(token)).status).to.equal(200);
  });

  it('once keys are known, tokens signed by them keep working while the provider is away', async () => {
    const token = await service.provider.token(uid('u'));
    expect((await list(token)).status).to.equal(200);
    service.provider.failWith = 503;
    await pause(1100); // the cached keys are now stale: they are fetched again, which fails
    expect((await list(token)).status).to.equal(200);
    expect((await list(token)).status).to.equal(200);
    const unknownKey = await service.provider.newKey();
    const res = await list(await service.provider.token(uid('u'), { key: unknownKey }));
    expect(res.status).to.equal(401);
  });
});

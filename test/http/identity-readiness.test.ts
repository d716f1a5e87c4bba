import { expect } from 'chai';
import { startIdentityTestService, type IdentityTestService } from '../support/identity-service.js';
import { startPlainTestService } from '../support/service.js';
import { uid } from '../support/ids.js';

const AUTH_TIMEOUT_MS = 1000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** With identity on, /v1/health/ready says whether tokens can be verified: the provider's keys at hand. */
describe('readiness with identity on: the identity provider', function () {
  this.timeout(20_000);
  let service: IdentityTestService;
  const ready = async () => {
    const started = Date.now();
    const res = await service.bare('GET', '/v1/health/ready');
    return { ...res, elapsedMs: Date.now() - started };
  };
  beforeEach(async () => {
    // Readiness would give up on its own after READINESS_TIMEOUT_MS: longer here, so the identity check's own bound is what shows.
    service = await startIdentityTestService({ AUTH_TIMEOUT_MS: String(AUTH_TIMEOUT_MS), AUTH_JWKS_CACHE_MS: '1000', READINESS_TIMEOUT_MS: '10000' });
  });
  afterEach(() => service.stop());

  it('fetches the keys before any request needed them, and is ready: 200 with identity_provider ok and required', async () => {
    const res = await ready();
    expect(res.status).to.equal(200);
    expect(res.json.checks.identity_provider).to.deep.equal({ status: 'ok', required: true });
    expect(service.provider.fetches).to.include({ discovery: 1, jwks: 1 });
    await ready();
    expect(service.provider.fetches.jwks, 'fresh keys are not fetched again').to.equal(1);
  });

  it('an issuer that accepts connections and never answers: 503 naming it, within AUTH_TIMEOUT_MS (+1 s), and 200 once it answers', async () => {
    service.provider.silent = true;
    const res = await ready();
    expect(res.status).to.equal(503);
    expect(res.json.detail).to.equal('unavailable: identity_provider');
    expect(res.json.checks.identity_provider.status).to.equal('error');
    expect(res.json.checks.identity_provider.required).to.equal(true);
    expect(res.json.checks.identity_provider.detail).to.match(/did not answer within 1000 ms/);
    expect(res.elapsedMs).to.be.below(AUTH_TIMEOUT_MS + 1000);
    // Meanwhile requests that need a token are refused with 503 as before, and the process stays live.
    expect((await service.bare('GET', '/v1/health')).status).to.equal(200);

    service.provider.silent = false;
    await pause(1100); // the provider is asked at most once a second while it fails
    const back = await ready();
    expect(back.status, back.text).to.equal(200);
    expect(back.json.checks.identity_provider).to.deep.equal({ status: 'ok', required: true });
  });

  it('an issuer that answers errors: 503 with its answer as the reason, and no more than one fetch a second however many probes', async () => {
    service.provider.failWith = 503;
    const answers = await Promise.all(Array.from({ length: 5 }, () => ready()));
    for (const res of answers) {
      expect(res.status).to.equal(503);
      expect(res.json.checks.identity_provider.detail).to.match(/openid-configuration answered 503$/);
    }
    expect((await ready()).status).to.equal(503);
    expect(service.provider.fetches.all).to.equal(1);
  });

  it('keys fetched before stay usable while the provider is away: ready (200), saying the provider fails', async () => {
    const token = await service.provider.token(uid('u'));
    expect((await service.bare('GET', '/api/chat/conversations', { headers: { authorization: `Bearer ${token}` } })).status).to.equal(200);
    service.provider.failWith = 500;
    await pause(1100); // the keys are now older than AUTH_JWKS_CACHE_MS
    const res = await ready();
    expect(res.status).to.equal(200);
    expect(res.json.checks.identity_provider.status).to.equal('ok');
    expect(res.json.checks.identity_provider.detail).to.match(/could not be fetched .*; the keys fetched before are used meanwhile$/);
  });
});

describe('readiness with identity off', () => {
  it('reports the identity provider as disabled', async () => {
    const service = await startPlainTestService();
    try {
      const res = await service.call('GET', '/v1/health/ready');
      expect(res.status).to.equal(200);
      expect(res.json.checks.identity_provider).to.deep.equal({ status: 'disabled', required: true, detail: 'identity is off (AUTH_MODE=none)' });
    } finally {
      await service.stop();
    }
  });
});

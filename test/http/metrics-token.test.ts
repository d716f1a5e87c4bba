import { expect } from 'chai';
import { startIdentityTestService } from '../support/identity-service.js';
import { startPlainTestService, type TestService } from '../support/service.js';

const METRICS_TOKEN = 'metrics-scraper-secret-0123456789';
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe('GET /metrics behind METRICS_TOKEN', () => {
  const expectClosed = async (service: TestService, headers: { headers?: Record<string, string> }, challenge: string) => {
    const res = await service.call('GET', '/metrics', headers);
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.equal(challenge);
    expect(res.json.status).to.equal('error');
  };

  it('without identity: only /metrics needs the token, compared exactly', async () => {
    const service = await startPlainTestService({ METRICS_TOKEN });
    try {
      await expectClosed(service, {}, 'Bearer');
      await expectClosed(service, bearer(`${METRICS_TOKEN}x`), 'Bearer error="invalid_token", error_description="the token is not accepted"');
      await expectClosed(service, bearer(METRICS_TOKEN.slice(0, -1)), 'Bearer error="invalid_token", error_description="the token is not accepted"');
      const res = await service.call('GET', '/metrics', bearer(METRICS_TOKEN));
      expect(res.status).to.equal(200);
      expect(res.text).to.match(/^# HELP /m);
      expect((await service.post('/v1/chat', { text: 'hi', user_id: 'u' })).status).to.equal(200);
      const document = (await service.call('GET', '/openapi.json')).json;
      expect(document.paths['/metrics'].get.security).to.deep.equal([{ metrics_token: [] }]);
      expect(document.paths['/v1/chat'].post.security).to.equal(undefined);
      expect(document.components.securitySchemes).to.have.keys('metrics_token');
    } finally {
      await service.stop();
    }
  });

  it('with identity on: /metrics takes the metrics token, not a user credential, and the metrics token opens nothing else', async () => {
    const service = await startIdentityTestService({ METRICS_TOKEN });
    try {
      await expectClosed(service, bearer(await service.provider.token('alice')), 'Bearer error="invalid_token", error_description="the token is not accepted"');
      await expectClosed(service, bearer(service.apiKeys.anyUser), 'Bearer error="invalid_token", error_description="the token is not accepted"');
      expect((await service.call('GET', '/metrics', bearer(METRICS_TOKEN))).status).to.equal(200);
      expect((await service.call('GET', '/api/ai/traits', bearer(METRICS_TOKEN))).status).to.equal(401);
    } finally {
      await service.stop();
    }
  });

  it('with identity on and no METRICS_TOKEN: /metrics needs a credential like every other endpoint', async () => {
    const service = await startIdentityTestService();
    try {
      expect((await service.bare('GET', '/metrics')).status).to.equal(401);
      expect((await service.call('GET', '/metrics', bearer(service.apiKeys.anyUser))).status).to.equal(200);
    } finally {
      await service.stop();
    }
  });
});

import { expect } from 'chai';
import { startTestService, type TestService } from '../support/service.js';

const RULE = 'query: malformed percent-encoding: each % must begin a valid UTF-8 sequence, such as %C3%A9';

describe('percent-encoding in the query and the path', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service?.stop());

  for (const [what, method, path] of [
    ['a truncated sequence', 'GET', '/api/tts?text=%E0%A4%A'],
    ['an encoded lone surrogate', 'GET', '/api/tts?text=a%ED%A0%80b'],
    ['a % without hex digits', 'GET', '/api/chat/conversations?user_id=100%'],
    ['an invalid UTF-8 byte', 'GET', '/api/chat/conversations?user_id=%FF'],
    ['a sequence cut by &', 'DELETE', '/api/chat/deleteMessages?user_id=u&conversation_id=%C3&all=true'],
    ['a parameter the route ignores', 'GET', '/v1/health?x=%E2%82'],
  ] as const) {
    it(`${what} is 400 naming query on an API path`, async () => {
      const res = await service.call(method, path);
      expect(res.status).to.equal(400);
      expect(res.json.detail).to.equal(RULE);
      expect(res.json.errors).to.deep.equal([{ field: 'query', message: RULE.slice('query: '.length) }]);
    });
  }

  for (const [method, path] of [
    ['GET', '/api/users/%FF/export'],
    ['DELETE', '/api/users/%zz'],
    ['GET', '/v1/chat/stream/a%ED%A0%80/stream?user_id=u'],
  ] as const) {
    it(`in the path (${method} ${path}): 400 naming path, not an id of other text`, async () => {
      const res = await service.call(method, path);
      expect(res.status).to.equal(400);
      expect(res.json.errors).to.deep.equal([{ field: 'path', message: RULE.slice('query: '.length) }]);
    });
  }

  it('a parameter given twice is 400 naming it, in our words (in OpenAI\'s shape on its paths)', async function () {
    if (process.env.TEST_AUTH_MODE === 'oidc') this.skip(); // names its user by the bearer value: identity off
    const listed = await service.call('GET', '/api/chat/conversations?user_id=u&cursor=a&cursor=b');
    expect(listed.status).to.equal(400);
    expect(listed.json.detail).to.equal('cursor: must be given once');
    const items = await service.call('GET', '/v1/conversations/c/items?limit=1&limit=2', { headers: { authorization: 'Bearer u' } });
    expect(items.status).to.equal(400);
    expect(items.json.error).to.include({ param: 'limit', message: 'limit: must be given once' });
  });

  it('well-formed sequences, + and plain text still work', async () => {
    const res = await service.call('GET', '/api/chat/conversations?user_id=caf%C3%A9+%F0%9F%98%80');
    expect(res.status).to.equal(200);
    expect((await service.call('GET', '/api/tts/voices?x=%41')).status).to.equal(200);
    expect((await service.call('GET', '/api/users/caf%C3%A9%2Fx/export')).status).to.equal(200);
  });

  it('outside the API (the demo page) the query is not read, so it is not judged', async () => {
    expect((await service.call('GET', '/?x=%E0%A4%A')).status).to.equal(200);
  });
});

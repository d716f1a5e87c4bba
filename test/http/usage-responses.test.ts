import { expect } from 'chai';
import { RateLimitError } from 'openai';
import { uid } from '../support/ids.js';
import { openAiClientFor } from '../support/openai-client.js';
import { startTestService, type TestService } from '../support/service.js';
import { awayFromMinuteEdge } from './usage.suite.js';

/**
 * POST /v1/responses is limited (LIMITED_ROUTES) before its route exists (issue 27). This test
 * runs once the service documents the route, and until then says so and skips: the official
 * openai package must raise a 429 of it as RateLimitError, as it does for /v1/audio/speech
 * (usage.suite.ts). Without identity the bearer value names the user, as the Responses API says.
 */
describe('usage limits on POST /v1/responses, through the openai package', function () {
  this.timeout(30_000);
  let service: TestService;
  before(async () => {
    service = await startTestService({ LIMIT_REQUESTS_PER_MINUTE: '1' });
  });
  after(() => service.stop());

  it('the request past the limit is a RateLimitError with the limit headers', async function () {
    const documented = (await service.call('GET', '/openapi.json')).json.paths['/v1/responses']?.post;
    if (!documented || process.env.TEST_AUTH_MODE === 'oidc') {
      // Remains to run: POST /v1/responses is not served yet (issue 27), or identity names the user otherwise.
      this.skip();
    }
    expect(documented.responses['429'], 'its 429 is in the document').to.be.an('object');
    await awayFromMinuteEdge();
    const client = openAiClientFor(service, { apiKey: uid('responder') });
    await client.responses.create({ model: 'any', input: 'Hello!' });
    const error = await client.responses.create({ model: 'any', input: 'Again!' }).then(
      () => expect.fail('the second request in the minute should be refused'),
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(RateLimitError);
    expect((error as RateLimitError).code).to.equal('rate_limit_exceeded');
    expect((error as RateLimitError).headers.get('x-ratelimit-remaining-requests')).to.equal('0');
    expect(Number((error as RateLimitError).headers.get('retry-after'))).to.be.within(1, 60);
  });
});

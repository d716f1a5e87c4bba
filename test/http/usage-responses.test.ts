import { expect } from 'chai';
import { NotFoundError, RateLimitError } from 'openai';
import { estimateTokens } from '../../src/domain/usage.js';
import { uid } from '../support/ids.js';
import { openAiClientFor } from '../support/openai-client.js';
import { ScriptedChatModel } from '../support/scripted-chat-model.js';
import { startTestService, type TestService } from '../support/service.js';
import { awayFromMinuteEdge, usageOf } from './usage.suite.js';

/**
 * Usage and limits on OpenAI's Responses API, through the official openai package. Without
 * identity the bearer value (the SDK's API key) names the user, as the Responses API says; with
 * identity on, openai-identity.test.ts covers who the user is, and this file is skipped.
 */
describe('usage and limits on POST /v1/responses, through the openai package', function () {
  this.timeout(30_000);
  before(function () {
    if (process.env.TEST_AUTH_MODE === 'oidc') this.skip();
  });

  describe('limits', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ LIMIT_REQUESTS_PER_MINUTE: '1' });
    });
    after(() => service?.stop());

    it('the request past the limit is a RateLimitError (type requests) with the limit headers, and counts nothing', async () => {
      const documented = (await service.call('GET', '/openapi.json')).json.paths['/v1/responses'].post;
      expect(documented.responses['429'], 'its 429 is in the document').to.be.an('object');
      await awayFromMinuteEdge();
      const user = uid('responder');
      const client = openAiClientFor(service, { apiKey: user });
      const first = await client.responses.create({ model: 'any', input: 'Hello!' }).withResponse();
      expect(first.response.headers.get('x-ratelimit-remaining-requests')).to.equal('0');
      const error = await client.responses.create({ model: 'any', input: 'Again!' }).then(
        () => expect.fail('the second request in the minute should be refused'),
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(RateLimitError);
      const refused = error as RateLimitError;
      expect(refused).to.include({ status: 429, code: 'rate_limit_exceeded', type: 'requests' });
      expect(refused.headers.get('x-ratelimit-remaining-requests')).to.equal('0');
      expect(refused.headers.get('ratelimit-policy')).to.equal('"requests";q=1;w=60');
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
      expect((await usageOf(service, user)).requests).to.equal(1);
      // The user is the bearer value: another one has an allowance of its own.
      await openAiClientFor(service, { apiKey: uid('other') }).responses.create({ model: 'any', input: 'Hello!' });
    });

    it('a token limit refuses with type tokens', async () => {
      const tokens = await startTestService({ LIMIT_TOKENS_PER_DAY: '5' });
      try {
        const client = openAiClientFor(tokens, { apiKey: uid('wordy') });
        await client.responses.create({ model: 'any', input: 'Hello! Who are you?' });
        const error = await client.responses.create({ model: 'any', input: 'More.' }).then(
          () => expect.fail('past the day\'s tokens'),
          (e: unknown) => e,
        );
        expect(error).to.be.instanceOf(RateLimitError);
        expect(error).to.include({ type: 'tokens', code: 'rate_limit_exceeded' });
      } finally {
        await tokens.stop();
      }
    });
  });

  describe('counting', () => {
    const model = new ScriptedChatModel();
    let service: TestService;
    before(async () => {
      service = await startTestService({ STREAM_WRITE_INTERVAL_MS: '20' }, { chatModel: model });
    });
    after(() => service?.stop());

    it("stored or not (store: false), a response's tokens count for the bearer's user; a cancelled one what it wrote", async () => {
      const user = uid('responder');
      const client = openAiClientFor(service, { apiKey: user });
      const answer = async (...pieces: string[]) => (await model.nextCall()).say(...pieces).finish();

      const stored = client.responses.create({ model: 'm', input: 'Hello there' });
      await answer('Hi, ', 'I am Aria.');
      await stored;
      const afterStored = await usageOf(service, user);
      expect(afterStored.requests).to.equal(1);
      expect(afterStored.output_tokens).to.equal(estimateTokens('Hi, I am Aria.'));

      const ephemeral = client.responses.create({ model: 'm', input: 'Do not keep this', store: false });
      await answer('Not kept.');
      expect((await ephemeral).output_text).to.equal('Not kept.');
      const afterEphemeral = await usageOf(service, user);
      expect(afterEphemeral.requests).to.equal(2);
      expect(afterEphemeral.output_tokens - afterStored.output_tokens).to.equal(estimateTokens('Not kept.'));
      expect(afterEphemeral.input_tokens).to.be.greaterThan(afterStored.input_tokens);

      const pending = client.responses.create({ model: 'm', input: 'Go on and on', background: true });
      const call = await model.nextCall();
      const response = await pending;
      call.say('So far, so good. ');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await client.responses.cancel(response.id)).status).to.equal('cancelled');
      await call.aborted;
      const afterCancel = await usageOf(service, user);
      expect(afterCancel.requests).to.equal(3);
      expect(afterCancel.output_tokens - afterEphemeral.output_tokens).to.equal(estimateTokens('So far, so good. '));

      // The client's mistake (a 404: no such previous response) counts nothing.
      const missing = await client.responses.create({ model: 'm', input: 'Hi', previous_response_id: 'resp_nope' }).then(
        () => expect.fail('an unknown previous_response_id'),
        (e: unknown) => e,
      );
      expect(missing).to.be.instanceOf(NotFoundError);
      expect((await usageOf(service, user)).requests).to.equal(3);
    });

    it("a cancelled response's input tokens are the model's own estimate, as a finished one's (the offline assistant counts words)", async () => {
      const slow = await startTestService({ OFFLINE_STREAM_DELAY_MS: '200' });
      try {
        const client = openAiClientFor(slow, { apiKey: uid('counted') });
        const input = 'Tell me about your favourite things in life';
        const finished = await client.responses.create({ model: 'm', input });
        const pending = await client.responses.create({ model: 'm', input, background: true });
        await new Promise((resolve) => setTimeout(resolve, 300));
        const cancelled = await client.responses.cancel(pending.id);
        expect(cancelled.status).to.equal('cancelled');
        expect(cancelled.usage!.input_tokens).to.equal(finished.usage!.input_tokens);
      } finally {
        await slow.stop();
      }
    });
  });
});

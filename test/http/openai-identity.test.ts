import { expect } from 'chai';
import { uid } from '../support/ids.js';
import { startIdentityTestService, type IdentityTestService } from '../support/identity-service.js';
import { openAiClientFor } from '../support/openai-client.js';
import { expectStatus, failure } from '../support/responses-client.js';

/**
 * Who the user is on OpenAI's paths with identity on (AUTH_MODE=oidc): the token's subject, or
 * the API key's user; an API key that acts for any user names the user in the query's `user_id`.
 */
describe("OpenAI's APIs with identity on: who the user is", function () {
  this.timeout(20_000);
  let service: IdentityTestService;
  before(async () => {
    service = await startIdentityTestService();
  });
  after(() => service?.stop());

  it("a token's subject is the user: its responses are its own, another token's user cannot see them", async () => {
    const alice = uid('alice');
    const client = openAiClientFor(service, { apiKey: await service.provider.token(alice) });
    const response = await client.responses.create({ model: 'm', input: 'Hello' });
    const native = await service.call('GET', `/api/chat/conversations?user_id=${encodeURIComponent(alice)}`);
    expect(native.json.conversations.map((c: { conversation_id: string }) => c.conversation_id)).to.deep.equal([response.conversation!.id]);
    const bob = openAiClientFor(service, { apiKey: await service.provider.token(uid('bob')) });
    await expectStatus(bob.responses.retrieve(response.id), 404);
  });

  it("an API key mapped to a user acts as that user", async () => {
    const client = openAiClientFor(service, { apiKey: service.apiKeys.mapped });
    const response = await client.responses.create({ model: 'm', input: 'Report' });
    const mine = openAiClientFor(service, { apiKey: await service.provider.token(service.apiKeys.mappedUser) });
    expect((await mine.responses.retrieve(response.id)).id).to.equal(response.id);
  });

  it('an API key for any user names the user in the query; without it, 400 naming user_id', async () => {
    const user = uid('carol');
    const backend = openAiClientFor(service, { apiKey: service.apiKeys.anyUser, defaultQuery: { user_id: user } });
    const response = await backend.responses.create({ model: 'm', input: 'On behalf' });
    const carol = openAiClientFor(service, { apiKey: await service.provider.token(user) });
    expect((await carol.responses.retrieve(response.id)).id).to.equal(response.id);
    const nobody = openAiClientFor(service, { apiKey: service.apiKeys.anyUser });
    expect(await failure(nobody.responses.create({ model: 'm', input: 'For whom?' }))).to.include({ status: 400, param: 'user_id' });
  });

  it("a token naming another user_id is 403, an invalid token 401, both in OpenAI's shape", async () => {
    const token = await service.provider.token(uid('dave'));
    const other = openAiClientFor(service, { apiKey: token, defaultQuery: { user_id: uid('eve') } });
    const forbidden = await failure(other.responses.create({ model: 'm', input: 'Sneaky' }));
    expect(forbidden.status).to.equal(403);
    expect(forbidden.type).to.equal('invalid_request_error');
    const invalid = await failure(openAiClientFor(service, { apiKey: 'not-a-token' }).responses.create({ model: 'm', input: 'x' }));
    expect(invalid.status).to.equal(401);
    expect(invalid.headers?.get('www-authenticate')).to.match(/^Bearer error="invalid_token"/);
  });

  it("OpenAI's speech endpoint answers a missing or invalid token in OpenAI's shape too, so the SDK reads it", async () => {
    const invalid = await failure(openAiClientFor(service, { apiKey: 'not-a-token' }).audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'x' }));
    expect(invalid.status, String(invalid)).to.equal(401);
    expect(invalid.message).to.match(/token/);
    expect(invalid.headers?.get('www-authenticate')).to.match(/^Bearer error="invalid_token"/);
    const missing = await service.bare('POST', '/v1/audio/speech', { body: { model: 'tts-1', voice: 'alloy', input: 'x' } });
    expect(missing.status).to.equal(401);
    expect(missing.json.error).to.include({ type: 'invalid_request_error' });
    expect(missing.json.error.message).to.match(/authentication required/);
  });
});

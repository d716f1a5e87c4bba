import { expect } from 'chai';
import { startIdentityTestService, type IdentityTestService } from '../support/identity-service.js';
import { uid } from '../support/ids.js';
import { FakeSpeechSynthesizer } from '../support/fake-speech-synthesizer.js';

/** With identity on (AUTH_MODE=oidc), usage is counted for the token's user, and read by that user only. */
describe('usage with identity on', () => {
  let service: IdentityTestService;
  before(async () => {
    service = await startIdentityTestService({ LIMIT_REQUESTS_PER_MINUTE: '100' }, { speechSynthesizer: new FakeSpeechSynthesizer() });
  });
  after(() => service?.stop());

  const as = async (user: string) => ({ authorization: `Bearer ${await service.provider.token(user)}` });

  it("counts chat and speech for the token's user (user_id left out); GET /v1/usage is one's own only", async () => {
    const [alice, bob] = [uid('alice'), uid('bob')];
    const headers = await as(alice);
    expect((await service.bare('POST', '/v1/chat', { headers, body: { text: 'Hello there.' } })).status).to.equal(200);
    const spoken = await service.bare('POST', '/api/tts', { headers, body: { text: 'Spoken.' } });
    expect(spoken.status).to.equal(200);
    expect(spoken.headers.get('x-ratelimit-remaining-requests')).to.equal('98');
    const own = await service.bare('GET', '/v1/usage', { headers });
    expect(own.status).to.equal(200);
    expect(own.json.user_id).to.equal(alice);
    expect(own.json.totals).to.deep.include({ requests: 2, speech_characters: 'Spoken.'.length });
    expect(own.json.totals.output_tokens).to.be.greaterThan(0);
    const other = await service.bare('GET', `/v1/usage?user_id=${bob}`, { headers });
    expect(other.status).to.equal(403);
    expect((await service.bare('GET', `/v1/usage?user_id=${alice}`)).status, 'no credential').to.equal(401);
  });

  it('a speech request naming another user than the token is 403 and counts nothing', async () => {
    const [alice, bob] = [uid('alice'), uid('bob')];
    const refused = await service.bare('POST', '/api/tts', { headers: await as(alice), body: { text: 'Not mine.', user_id: bob } });
    expect(refused.status).to.equal(403);
    const own = await service.bare('GET', '/v1/usage', { headers: await as(alice) });
    expect(own.json.totals).to.deep.include({ requests: 0, speech_characters: 0 });
  });
});

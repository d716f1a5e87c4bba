import { expect } from 'chai';
import { OpenAiSpeechSynthesizer, OPENAI_VOICES } from '../../../src/adapters/tts/openai/openai-speech-synthesizer.js';
import { SpeechEngineFailedError, SpeechEngineTimedOutError } from '../../../src/domain/errors.js';
import { parseWav } from '../../support/audio.js';
import { documentedFetch } from '../../support/documented-responses.js';
import { FakeSpeechServer } from '../../support/fake-speech-server.js';
import { startTestService } from '../../support/service.js';
import { fileOf } from '../../support/speech.js';

const KEY = 'sk-test-very-secret-0123456789';

describe('OpenAiSpeechSynthesizer', () => {
  let fake: FakeSpeechServer;
  beforeEach(async () => {
    fake = await FakeSpeechServer.start();
  });
  afterEach(() => fake.stop());

  const make = (options: Partial<ConstructorParameters<typeof OpenAiSpeechSynthesizer>[0]> = {}) =>
    new OpenAiSpeechSynthesizer({ model: 'tts-1', apiKey: KEY, timeoutMs: 5000, maxRetries: 0, ...options, baseUrl: options.baseUrl ?? fake.baseUrl });
  const request = { text: 'Hello there', voice: 'nova', speed: 1.25, format: 'wav' as const };
  const failure = (promise: Promise<unknown>) => promise.then(() => null, (e: unknown) => e as Error);

  it('POSTs {model, input, voice, response_format, speed} to {base}/audio/speech with the key', async () => {
    await fileOf(make().synthesize(request));
    expect(fake.calls).to.have.length(1);
    expect(fake.calls[0]!.body).to.deep.equal({ model: 'tts-1', input: 'Hello there', voice: 'nova', response_format: 'wav', speed: 1.25 });
    expect(fake.calls[0]!.authorization).to.equal(`Bearer ${KEY}`);
  });

  it('offers OpenAI\'s voices, alloy by default; or the configured ones', async () => {
    const openai = make();
    expect((await openai.voices()).map((v) => v.id)).to.deep.equal(OPENAI_VOICES);
    expect(openai.defaultVoice()).to.equal('alloy');
    expect(await openai.findVoice('ALLOY')).to.equal(null);
    const local = make({ voices: ['af_bella', 'am_adam'], voice: 'am_adam' });
    expect(await local.voices()).to.deep.equal([
      { id: 'af_bella', name: 'Af_bella', language: 'mul' },
      { id: 'am_adam', name: 'Am_adam', language: 'mul' },
    ]);
    expect(local.defaultVoice()).to.equal('am_adam');
    expect(make({ voices: ['x1'] }).defaultVoice()).to.equal('x1');
  });

  it('gives a streamed WAV (sizes 0xFFFFFFFF) a header with true sizes', async () => {
    fake.behaviour = { kind: 'streamed-wav' };
    const facts = parseWav(await fileOf(make().synthesize(request)));
    expect(facts.durationS).to.be.closeTo((11 * 0.06) / 1.25, 0.01);
  });

  it('an error status becomes a 502 naming the server, the status and the code, never the key or the server\'s words', async () => {
    fake.behaviour = { kind: 'status', status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}`, code: 'invalid_api_key' } } };
    const error = await failure(fileOf(make().synthesize(request)));
    expect(error).to.be.instanceOf(SpeechEngineFailedError);
    expect(error!.message).to.equal(`the speech API at ${new URL(fake.baseUrl).host} answered 401 Unauthorized (invalid_api_key)`);
    expect(error!.message).not.to.include('sk-');
  });

  it('a 504 from the server is a time-out', async () => {
    fake.behaviour = { kind: 'status', status: 504, body: {} };
    expect(await failure(fileOf(make().synthesize(request)))).to.be.instanceOf(SpeechEngineTimedOutError);
  });

  it('audio that is not of the asked format is a 502', async () => {
    fake.behaviour = { kind: 'garbage' };
    const wav = await failure(fileOf(make().synthesize(request)));
    expect(wav).to.be.instanceOf(SpeechEngineFailedError);
    expect(wav!.message).to.match(/sent something that is not a WAV file/);
    const mp3 = await failure(fileOf(make().synthesize({ ...request, format: 'mp3' })));
    expect(mp3!.message).to.match(/sent something that is not an MP3 file/);
  });

  it('a server that cannot be reached is a 502', async () => {
    const baseUrl = fake.baseUrl;
    await fake.stop();
    const error = await failure(fileOf(make({ baseUrl }).synthesize(request)));
    expect(error).to.be.instanceOf(SpeechEngineFailedError);
    expect(error!.message).to.equal(`could not reach the speech API at ${new URL(baseUrl).host}`);
    fake = await FakeSpeechServer.start(); // for afterEach
  });

  it('a server that never answers times out (504) after its own deadline', async () => {
    fake.behaviour = { kind: 'hang' };
    const started = Date.now();
    const error = await failure(fileOf(make({ timeoutMs: 300 }).synthesize(request)));
    expect(error).to.be.instanceOf(SpeechEngineTimedOutError);
    expect(Date.now() - started).to.be.below(3000);
  });

  it('is chosen with TTS_PROVIDER=openai: GET /api/tts speaks through the server', async () => {
    const service = await startTestService({
      TTS_PROVIDER: 'openai',
      TTS_BASE_URL: fake.baseUrl,
      TTS_API_KEY: KEY,
      TTS_MODEL: 'gpt-4o-mini-tts',
      TTS_VOICE: 'coral',
    });
    try {
      const response = await documentedFetch(`${service.url}/api/tts?text=Hi%20there&format=mp3&speed=0.75`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('audio/mpeg');
      expect(fake.calls[0]!.body).to.deep.equal({ model: 'gpt-4o-mini-tts', input: 'Hi there', voice: 'coral', response_format: 'mp3', speed: 0.75 });
      const voices = await service.call('GET', '/api/tts/voices');
      expect(voices.json.default_voice).to.equal('coral');
      fake.behaviour = { kind: 'status', status: 500, body: {} };
      const failed = await service.call('GET', '/api/tts?text=Another');
      expect(failed.status).to.equal(502);
      expect(failed.json.detail).to.match(/^the speech API at 127\.0\.0\.1:\d+ answered 500 Internal Server Error$/);
    } finally {
      await service.stop();
    }
  });
});

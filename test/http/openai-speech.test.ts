import { expect } from 'chai';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import fc from 'fast-check';
import OpenAI, { APIError, BadRequestError } from 'openai';
import { SpeechEngineFailedError } from '../../src/domain/errors.js';
import { UNSTORABLE_RULE } from '../../src/domain/text.js';
import { decodeMp3, parseWav, SECONDS_PER_CHARACTER } from '../support/audio.js';
import { documentedFetch } from '../support/documented-responses.js';
import { FakeSpeechSynthesizer } from '../support/fake-speech-synthesizer.js';
import { openAiClientFor } from '../support/openai-client.js';
import { startTestService, type TestService } from '../support/service.js';

const TEXT = 'Hello there. This is the assistant speaking through an OpenAI client. It works.';
const perCharacter = (seconds: number, text = TEXT) => seconds / [...text].length;
const bytesOf = async (response: Response) => new Uint8Array(await response.arrayBuffer());

/** The events of an SSE response, in order. */
async function eventsOf(response: Response): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const decoder = new TextDecoder();
  for await (const part of response.body!) parser.feed(decoder.decode(part, { stream: true }));
  return events;
}

async function failure(promise: Promise<unknown>): Promise<APIError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error, 'the call should fail').to.be.instanceOf(APIError);
  return error as APIError;
}

describe('POST /v1/audio/speech through the openai package\'s own client (embedded engine)', function () {
  this.timeout(60_000);
  let service: TestService;
  let client: OpenAI;
  before(async () => {
    service = await startTestService();
    client = openAiClientFor(service);
  });
  after(() => service?.stop());

  it('mp3 by default: a file that decodes, as long as the text needs, the model echoed', async () => {
    const response = await client.audio.speech.create({ model: 'tts-1', input: TEXT, voice: 'alloy' });
    expect(response.headers.get('content-type')).to.equal('audio/mpeg');
    expect(response.headers.get('x-model')).to.equal('tts-1');
    const mp3 = await decodeMp3(await bytesOf(response));
    expect(mp3.errors).to.equal(0);
    expect(perCharacter(mp3.durationS)).to.be.within(SECONDS_PER_CHARACTER.min, SECONDS_PER_CHARACTER.max);
  });

  it('wav: a valid PCM WAV file of plausible duration', async () => {
    const response = await client.audio.speech.create({ model: 'gpt-4o-mini-tts', input: TEXT, voice: 'nova', response_format: 'wav' });
    expect(response.headers.get('content-type')).to.equal('audio/wav');
    const wav = parseWav(await bytesOf(response), { streamed: true });
    expect(wav).to.include({ audioFormat: 1, channels: 1, bitsPerSample: 16 });
    expect(perCharacter(wav.durationS)).to.be.within(SECONDS_PER_CHARACTER.min, SECONDS_PER_CHARACTER.max);
  });

  it('pcm: raw 16-bit mono samples at 24 kHz, as OpenAI sends them', async () => {
    const response = await client.audio.speech.create({ model: 'tts-1', input: TEXT, voice: 'onyx', response_format: 'pcm', speed: 1 });
    expect(response.headers.get('content-type')).to.equal('audio/pcm');
    const pcm = await bytesOf(response);
    expect(pcm.length % 2).to.equal(0);
    expect(Buffer.from(pcm.subarray(0, 4)).toString('latin1')).not.to.equal('RIFF');
    expect(perCharacter(pcm.length / 2 / 24_000)).to.be.within(SECONDS_PER_CHARACTER.min, SECONDS_PER_CHARACTER.max);
  });

  it('a long input is streamed, and still a valid file', async () => {
    const input = 'The sun rose over the quiet hills. '.repeat(60).trim();
    const response = await client.audio.speech.create({ model: 'tts-1', input, voice: 'echo', response_format: 'mp3' });
    expect(response.headers.get('content-length')).to.equal(null);
    const mp3 = await decodeMp3(await bytesOf(response));
    expect(mp3.errors).to.equal(0);
    expect(perCharacter(mp3.durationS, input)).to.be.within(SECONDS_PER_CHARACTER.min, SECONDS_PER_CHARACTER.max);
  });

  it('stream_format "sse": speech.audio.delta events whose audio is the file, then speech.audio.done with usage', async () => {
    const response = await client.audio.speech.create({ model: 'gpt-4o-mini-tts', input: TEXT, voice: 'coral', response_format: 'wav', stream_format: 'sse' });
    expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
    const events = await eventsOf(response);
    const deltas = events.slice(0, -1);
    expect(deltas.length).to.be.above(0);
    for (const delta of deltas) {
      expect(delta.event).to.equal('speech.audio.delta');
      expect(JSON.parse(delta.data)).to.have.all.keys('type', 'audio');
    }
    const done = JSON.parse(events.at(-1)!.data);
    expect(done).to.deep.equal({ type: 'speech.audio.done', usage: { input_tokens: TEXT.length, output_tokens: 0, total_tokens: TEXT.length } });
    const audio = Buffer.concat(deltas.map((delta) => Buffer.from(JSON.parse(delta.data).audio, 'base64')));
    const wav = parseWav(new Uint8Array(audio), { streamed: true });
    expect(perCharacter(wav.durationS)).to.be.within(SECONDS_PER_CHARACTER.min, SECONDS_PER_CHARACTER.max);
  });

  it('every OpenAI voice name speaks, and a custom-voice object {id} names a voice', async () => {
    for (const voice of ['alloy', 'ash', 'ballad', 'cedar', 'coral', 'echo', 'fable', 'marin', 'nova', 'onyx', 'sage', 'shimmer', 'verse', 'en-gb']) {
      const response = await client.audio.speech.create({ model: 'tts-1', input: 'Hi.', voice, response_format: 'wav' });
      expect(parseWav(await bytesOf(response)).durationS, voice).to.be.above(0.1);
    }
    const custom = await client.audio.speech.create({ model: 'tts-1', input: 'Hi.', voice: { id: 'fr-fr' }, response_format: 'wav' });
    parseWav(await bytesOf(custom));
  });

  it('speeds from OpenAI\'s range are accepted; the engine speaks at the nearest it can', async () => {
    const speak = async (speed: number) =>
      parseWav(await bytesOf(await client.audio.speech.create({ model: 'tts-1', input: TEXT, voice: 'alloy', response_format: 'wav', speed })), { streamed: true });
    const [fast, slow] = [await speak(4), await speak(0.25)];
    expect(fast.durationS).to.be.below(slow.durationS * 0.6);
  });

  describe('errors in OpenAI\'s shape, with our statuses', () => {
    const cases: [string, Record<string, unknown>, string, string, string][] = [
      ['an unknown voice', { voice: 'nobody' }, 'voice', 'voice_not_found', 'voice: must be one of the voices listed by GET /api/tts/voices'],
      ['an empty input', { input: '   ' }, 'input', 'invalid_value', 'input: must be a non-empty string'],
      ['an input over 4,096 characters', { input: 'a'.repeat(4097) }, 'input', 'invalid_value', 'input: must be at most 4096 characters'],
      ['a format OpenAI names that no engine here makes', { response_format: 'flac' }, 'response_format', 'audio_format_unsupported', 'response_format: must be one of wav, mp3, pcm (this speech engine cannot make flac)'],
      ['aac, likewise', { response_format: 'aac' }, 'response_format', 'audio_format_unsupported', 'response_format: must be one of wav, mp3, pcm (this speech engine cannot make aac)'],
      ['a format OpenAI does not name', { response_format: 'ogg' }, 'response_format', 'invalid_value', 'response_format: must be one of mp3, opus, aac, flac, wav, pcm'],
      ['opus, which this engine does not make', { response_format: 'opus' }, 'response_format', 'audio_format_unsupported', 'response_format: must be one of wav, mp3, pcm (this speech engine cannot make opus)'],
      ['a speed out of range', { speed: 5 }, 'speed', 'invalid_value', 'speed: must be a number from 0.25 to 4.0'],
      ['no model', { model: undefined }, 'model', 'missing_required_parameter', 'model: is required'],
      ['a NUL in model', { model: 'tts\u0000-1' }, 'model', 'invalid_value', `model: ${UNSTORABLE_RULE}`],
      ['a lone surrogate in instructions', { instructions: 'calm \ud800' }, 'instructions', 'invalid_value', `instructions: ${UNSTORABLE_RULE}`],
    ];
    for (const [what, change, param, code, message] of cases) {
      it(`${what}: 400 (BadRequestError with param ${param})`, async () => {
        const request = { model: 'tts-1', input: TEXT, voice: 'alloy', ...change } as OpenAI.Audio.SpeechCreateParams;
        const error = await failure(client.audio.speech.create(request));
        expect(error).to.be.instanceOf(BadRequestError);
        expect(error.status).to.equal(400);
        expect(error.error).to.deep.equal({ message, type: 'invalid_request_error', param, code });
        expect(error.message).to.equal(`400 ${message}`);
      });
    }

    it('the body carries our detail and status too; malformed JSON and other methods answer in the same shape', async () => {
      const bad = await documentedFetch(`${service.url}/v1/audio/speech`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":' });
      expect(bad.status).to.equal(400);
      expect(await bad.json()).to.deep.equal({
        error: { message: 'body: malformed JSON', type: 'invalid_request_error', param: null, code: 'invalid_json' },
        detail: 'body: malformed JSON',
        status: 'error',
      });
      const get = await documentedFetch(`${service.url}/v1/audio/speech`);
      expect(get.status).to.equal(405);
      expect(get.headers.get('allow')).to.equal('POST');
      expect(((await get.json()) as { error: object }).error).to.include({ type: 'invalid_request_error', code: 'method_not_allowed' });
    });
  });
});

describe('POST /v1/audio/speech: engine failures through the openai client (fake engine)', () => {
  let service: TestService;
  let engine: FakeSpeechSynthesizer;
  beforeEach(async () => {
    engine = new FakeSpeechSynthesizer();
    service = await startTestService({ TTS_MAX_CONCURRENT: '1', TTS_MAX_QUEUE: '0' }, { speechSynthesizer: engine });
  });
  afterEach(async () => {
    engine.release();
    await service.stop();
  });

  it('502 when the engine fails (server_error)', async () => {
    engine.failure = new SpeechEngineFailedError('the engine broke down');
    const error = await failure(openAiClientFor(service).audio.speech.create({ model: 'tts-1', input: 'Hi', voice: 'alpha' }));
    expect(error.status).to.equal(502);
    expect(error.error).to.deep.equal({ message: 'the engine broke down', type: 'server_error', param: null, code: 'speech_engine_failed' });
  });

  it('503 with Retry-After when syntheses are at capacity', async () => {
    engine.hold();
    const client = openAiClientFor(service);
    const running = client.audio.speech.create({ model: 'tts-1', input: 'first', voice: 'alpha' });
    while (engine.running === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const error = await failure(client.audio.speech.create({ model: 'tts-1', input: 'second', voice: 'alpha' }));
    expect(error.status).to.equal(503);
    expect(error.headers?.get('retry-after')).to.equal('2');
    expect(error.error).to.include({ type: 'server_error', code: 'capacity_exhausted' });
    engine.release();
    expect((await running).status).to.equal(200);
  });

  it('property: any JSON body gets audio or an error in OpenAI\'s shape, never a 500', async () => {
    const anything = fc.oneof(fc.string({ maxLength: 30 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }), fc.object({ maxDepth: 1 }));
    const field = (good: fc.Arbitrary<unknown>) => fc.option(fc.oneof({ weight: 3, arbitrary: good }, { weight: 1, arbitrary: anything }), { nil: undefined });
    const body = fc.record({
      model: field(fc.constantFrom('tts-1', 'gpt-4o-mini-tts', '')),
      input: field(fc.string({ unit: 'grapheme', maxLength: 80 })),
      voice: field(fc.constantFrom('alpha', 'beta', 'alloy', { id: 'beta' }, '')),
      response_format: field(fc.constantFrom('mp3', 'wav', 'pcm', 'opus', 'flac')),
      speed: field(fc.double({ min: 0, max: 5, noNaN: true })),
      stream_format: field(fc.constantFrom('audio', 'sse')),
      instructions: field(fc.string({ maxLength: 20 })),
    });
    await fc.assert(
      fc.asyncProperty(body, async (request) => {
        const response = await documentedFetch(`${service.url}/v1/audio/speech`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
        const bytes = Buffer.from(await response.arrayBuffer());
        if (response.status === 200) return;
        expect(response.status, bytes.toString()).to.be.within(400, 499);
        const answer = JSON.parse(bytes.toString()) as { error: Record<string, unknown>; detail: string; status: string };
        expect(answer.status).to.equal('error');
        expect(Object.keys(answer.error).sort()).to.deep.equal(['code', 'message', 'param', 'type']);
        expect(answer.error.message).to.equal(answer.detail);
      }),
      { numRuns: 60 },
    );
  });
});

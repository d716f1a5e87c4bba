import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import { SpeechEngineFailedError } from '../../src/domain/errors.js';
import { decodeMp3, parseWav, SECONDS_PER_CHARACTER } from '../support/audio.js';
import { documentedFetch, expectDocumented, headerReader } from '../support/documented-responses.js';
import { FakeSpeechSynthesizer } from '../support/fake-speech-synthesizer.js';
import { capturedLogger } from '../support/log-capture.js';
import { startTestService, type TestService } from '../support/service.js';
import { withCredentials } from '../support/test-credentials.js';

const LONG = 'The weather is lovely today. '.repeat(60).trim();
const query = (text: string, extra = '') => `/api/tts?text=${encodeURIComponent(text)}${extra}`;

interface Received {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Bytes in the order they arrived, each part as read. */
  parts: Buffer[];
  /** The response ended properly (false: the connection was cut). */
  complete: boolean;
}

/**
 * A GET through node:http, to see the transfer encoding and the parts as they arrive; the
 * answer is checked against the service's /openapi.json once it has ended (or was cut).
 */
async function get(service: TestService, path: string, onPart?: (part: Buffer) => void): Promise<Received> {
  const received = await receive(service.url + path, onPart);
  const json = /json/.test(String(received.headers['content-type']));
  const body = json ? Buffer.concat(received.parts).toString('utf8') : undefined;
  await expectDocumented(service.url + path, 'GET', { status: received.status, header: headerReader(received.headers), body });
  return received;
}

async function receive(url: string, onPart?: (part: Buffer) => void): Promise<Received> {
  const headers = await withCredentials(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => {
        parts.push(part);
        onPart?.(part);
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, parts, complete: res.complete }));
      res.on('error', () => resolve({ status: res.statusCode!, headers: res.headers, parts, complete: false }));
      res.on('aborted', () => resolve({ status: res.statusCode!, headers: res.headers, parts, complete: false }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('text to speech over HTTP: streamed audio (fake engine)', () => {
  let service: TestService;
  let engine: FakeSpeechSynthesizer;
  beforeEach(async () => {
    engine = new FakeSpeechSynthesizer();
    engine.parts = 4;
    service = await startTestService({}, { speechSynthesizer: engine });
  });
  afterEach(async () => {
    engine.releaseRest();
    await service.stop();
  });

  it('the first bytes leave before the rest is made: chunked, no Content-Length, a weak ETag', async () => {
    engine.holdAfterFirst();
    let firstArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (firstArrived = resolve));
    const pending = get(service, query(LONG), () => firstArrived());
    await arrived; // the engine is still holding everything after its first piece
    expect(engine.running).to.equal(1);
    engine.releaseRest();
    const res = await pending;
    expect(res.status).to.equal(200);
    expect(res.headers['transfer-encoding']).to.equal('chunked');
    expect(res.headers['content-length']).to.equal(undefined);
    expect(res.headers['content-type']).to.equal('audio/wav');
    expect(res.headers.etag).to.match(/^W\/"[A-Za-z0-9_-]{20,}"$/);
    const bytes = Buffer.concat(res.parts);
    expect(bytes.readUInt32LE(40)).to.equal(0xffffffff); // "length unknown", as streaming servers write it
    const wav = parseWav(new Uint8Array(bytes), { streamed: true });
    expect(wav.durationS / LONG.length).to.be.within(SECONDS_PER_CHARACTER.min, SECONDS_PER_CHARACTER.max);
  });

  it('the same request once finished comes whole from the cache: Content-Length, the strong ETag, true sizes', async () => {
    const streamed = await get(service, query(LONG));
    const cached = await get(service, query(LONG));
    expect(engine.calls).to.equal(1);
    expect(cached.headers['content-length']).to.equal(String(Buffer.concat(cached.parts).length));
    expect(cached.headers.etag).to.equal(String(streamed.headers.etag).replace(/^W\//, ''));
    const file = parseWav(new Uint8Array(Buffer.concat(cached.parts)));
    expect(file.dataBytes).to.equal(Buffer.concat(streamed.parts).length - 44);
    // The streamed ETag revalidates the finished audio.
    const revalidated = await documentedFetch(service.url + query(LONG), { headers: { 'if-none-match': String(streamed.headers.etag) } });
    expect(revalidated.status).to.equal(304);
  });

  it('a request joining a synthesis in flight gets the bytes made so far, then the rest: the same audio, one synthesis', async () => {
    engine.holdAfterFirst();
    let firstArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (firstArrived = resolve));
    const first = get(service, query(LONG), () => firstArrived());
    await arrived;
    const second = get(service, query(LONG));
    await new Promise((resolve) => setTimeout(resolve, 50));
    engine.releaseRest();
    const [a, b] = await Promise.all([first, second]);
    expect(engine.calls).to.equal(1);
    expect(Buffer.concat(b.parts).equals(Buffer.concat(a.parts))).to.equal(true);
  });

  it('a failure after the first bytes cuts the connection (no truncated file passed off as whole), and nothing is cached', async () => {
    engine.failureAfterFirst = new SpeechEngineFailedError('the engine broke down');
    engine.holdAfterFirst();
    const res = await get(service, query(LONG), () => engine.releaseRest());
    expect(res.status).to.equal(200);
    expect(res.parts.length).to.be.above(0);
    expect(res.complete).to.equal(false);
    engine.failureAfterFirst = undefined;
    const again = await get(service, query(LONG));
    expect(again.complete).to.equal(true);
    expect(engine.calls).to.equal(2);
  });

  it('a failure before the first bytes leave is an ordinary JSON error', async () => {
    engine.failure = new SpeechEngineFailedError('the engine is broken');
    const res = await documentedFetch(service.url + query(LONG));
    expect(res.status).to.equal(502);
    expect(await res.json()).to.deep.equal({ detail: 'the engine is broken', status: 'error' });
    engine.failure = undefined;
    engine.failureAfterFirst = new SpeechEngineFailedError('broke down at once'); // before anything could be sent
    const early = await documentedFetch(service.url + query(LONG));
    expect(early.status).to.equal(502);
    expect(await early.json()).to.deep.equal({ detail: 'broke down at once', status: 'error' });
  });
});

describe('text to speech over HTTP: streamed audio from the embedded engine', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startTestService({ TTS_CACHE_BYTES: '0' });
  });
  after(() => service?.stop());

  it('a client that hangs up mid-stream is no fault: nothing is logged as one, and the next request is whole', async () => {
    const { logger, lines } = capturedLogger('info');
    const logged = await startTestService({ TTS_CACHE_BYTES: '0' }, { logger });
    try {
      for (const format of ['mp3', 'wav', 'mp3']) {
        const hangUp = new AbortController();
        const url = logged.url + query(LONG.repeat(3).slice(0, 4000), `&format=${format}`);
        const res = await fetch(url, { signal: hangUp.signal, headers: await withCredentials(url) });
        const reader = res.body!.getReader();
        expect((await reader.read()).done, `the first bytes of ${format}`).to.equal(false);
        hangUp.abort();
        await reader.read().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      const whole = await receive(logged.url + query(LONG, '&format=mp3'));
      expect(whole).to.include({ status: 200, complete: true });
      expect(lines.filter((line) => JSON.parse(line).level >= 50).map((line) => JSON.parse(line).err?.code)).to.deep.equal([]);
    } finally {
      await logged.stop();
    }
  });

  it('4,096 characters of WAV: the first bytes come long before the last, and the whole plays for as long as the text needs', async () => {
    const text = LONG.repeat(3).slice(0, 4096);
    const started = Date.now();
    let firstAt = 0;
    const res = await get(service, query(text), () => (firstAt ||= Date.now()));
    const doneAt = Date.now();
    expect(res.status).to.equal(200);
    expect(res.headers['transfer-encoding']).to.equal('chunked');
    expect(res.parts.length).to.be.above(1);
    expect(firstAt - started).to.be.below(doneAt - started);
    const wav = parseWav(new Uint8Array(Buffer.concat(res.parts)), { streamed: true });
    expect(wav).to.include({ audioFormat: 1, channels: 1, sampleRate: 22_050, bitsPerSample: 16 });
    expect(wav.durationS / 4096).to.be.within(SECONDS_PER_CHARACTER.min, SECONDS_PER_CHARACTER.max);
  });

  it('a long text as MP3: frames as they are encoded, decoding to one file', async () => {
    const res = await get(service, query(LONG, '&format=mp3'));
    expect(res.headers['content-type']).to.equal('audio/mpeg');
    const mp3 = await decodeMp3(new Uint8Array(Buffer.concat(res.parts)));
    expect(mp3.errors).to.equal(0);
    expect(mp3.durationS / LONG.length).to.be.within(SECONDS_PER_CHARACTER.min, SECONDS_PER_CHARACTER.max);
  });

  it('a text mostly in another script, with no voice asked for, is read by a voice of that script (Chinese by cmn), not spelled out by the default', async () => {
    const chinese = '你好，世界。今天天气很好。我们去公园散步吧。';
    const [unasked, mandarin, english] = (await Promise.all(['', '&voice=cmn', '&voice=en-us'].map((voice) => documentedFetch(service.url + query(chinese, voice))))) as [Response, Response, Response];
    expect(unasked.headers.get('etag')).to.equal(mandarin.headers.get('etag'));
    expect(unasked.headers.get('etag')).to.not.equal(english.headers.get('etag'));
    const wav = parseWav(new Uint8Array(await unasked.arrayBuffer()), { streamed: true });
    const spelled = parseWav(new Uint8Array(await english.arrayBuffer()), { streamed: true });
    expect(wav.durationS).to.be.below(spelled.durationS / 1.5);
    await mandarin.arrayBuffer();
  });

  it('OpenAI\'s voice names speak too (alloy is American English)', async () => {
    const res = await documentedFetch(service.url + query('Hello there.', '&voice=alloy'));
    expect(res.status).to.equal(200);
    parseWav(new Uint8Array(await res.arrayBuffer()));
  });
});

import { expect } from 'chai';
import { JsonFilePersonaSource } from '../../src/adapters/persona/json-file-persona-source.js';
import type { PersonaSource } from '../../src/application/ports/persona-source.js';
import { SpeechEngineFailedError } from '../../src/domain/errors.js';
import { ID_RULE } from '../../src/domain/ids.js';
import { UNSTORABLE_RULE } from '../../src/domain/text.js';
import { documentedFetch } from '../support/documented-responses.js';
import { decodeMp3, parseWav, SECONDS_PER_CHARACTER } from '../support/audio.js';
import { FakeSpeechSynthesizer } from '../support/fake-speech-synthesizer.js';
import { startTestService, type TestService } from '../support/service.js';

interface AudioResult {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  json: { detail?: string; status?: string } | undefined;
}

/** fetch() keeping the body as bytes (audio), and as JSON when it is JSON; checked against /openapi.json. */
async function fetchAudio(service: TestService, path: string, init: RequestInit = {}): Promise<AudioResult> {
  const response = await documentedFetch(service.url + path, init);
  const bytes = new Uint8Array(await response.arrayBuffer());
  let json: AudioResult['json'];
  if (response.headers.get('content-type')?.startsWith('application/json')) json = JSON.parse(Buffer.from(bytes).toString('utf8'));
  return { status: response.status, headers: response.headers, bytes, json };
}

const postJson = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const personaWithVoice = (voice: string | null): PersonaSource => {
  const persona = new JsonFilePersonaSource().persona();
  return { persona: () => ({ ...persona, voice }) };
};

describe('text to speech over HTTP (fake engine)', () => {
  let service: TestService;
  let engine: FakeSpeechSynthesizer;
  beforeEach(async () => {
    engine = new FakeSpeechSynthesizer();
    service = await startTestService({}, { speechSynthesizer: engine });
  });
  afterEach(() => service.stop());

  describe('200', () => {
    it('GET ?text= gives a WAV file with Content-Type, Content-Length, ETag and Cache-Control', async () => {
      const res = await fetchAudio(service, '/api/tts?text=Hello%20there');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('audio/wav');
      expect(Number(res.headers.get('content-length'))).to.equal(res.bytes.length);
      expect(res.headers.get('etag')).to.match(/^"[A-Za-z0-9_-]{20,}"$/);
      expect(res.headers.get('cache-control')).to.equal('public, max-age=86400');
      const wav = parseWav(res.bytes);
      expect(wav.durationS / 'Hello there'.length).to.be.within(SECONDS_PER_CHARACTER.min, SECONDS_PER_CHARACTER.max);
      expect(engine.requests[0]).to.deep.equal({ text: 'Hello there', voice: 'alpha', format: 'wav', speed: 1 });
    });

    it('GET format=mp3 gives audio/mpeg that decodes', async () => {
      const res = await fetchAudio(service, '/api/tts?text=Hello&format=mp3&speed=1.5&voice=beta');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('audio/mpeg');
      expect(Number(res.headers.get('content-length'))).to.equal(res.bytes.length);
      expect((await decodeMp3(res.bytes)).durationS).to.be.above(0.1);
      expect(engine.requests[0]).to.deep.equal({ text: 'Hello', voice: 'beta', format: 'mp3', speed: 1.5 });
    });

    it('POST JSON {text, voice, format, speed}, nulls meaning "not given"', async () => {
      const res = await fetchAudio(service, '/api/tts', postJson({ text: 'Bonjour', voice: 'beta', format: 'mp3', speed: 0.5 }));
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('audio/mpeg');
      const defaults = await fetchAudio(service, '/api/tts', postJson({ text: 'Hi', voice: null, format: null, speed: null }));
      expect(defaults.status).to.equal(200);
      expect(engine.requests[1]).to.deep.equal({ text: 'Hi', voice: 'alpha', format: 'wav', speed: 1 });
    });

    it('GET ?message_id= speaks a message saved through /api/chat/saveMessage, privately cached', async () => {
      const saved = await service.post('/api/chat/saveMessage', { user_id: 'u-tts', conversation_id: 'c-tts', role: 'assistant', text: 'Stored words', message_id: 'm-tts-1' });
      expect(saved.status).to.equal(201);
      const res = await fetchAudio(service, '/api/tts?message_id=m-tts-1&user_id=u-tts');
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('private, no-cache');
      expect(engine.requests[0]!.text).to.equal('Stored words');
      parseWav(res.bytes);
    });

    it('the same text by message_id and by text is one cache entry and one ETag', async () => {
      await service.post('/api/chat/saveMessage', { user_id: 'u', conversation_id: 'c', role: 'user', text: 'Shared', message_id: 'm-shared' });
      const byMessage = await fetchAudio(service, '/api/tts?message_id=m-shared&user_id=u');
      const byText = await fetchAudio(service, '/api/tts?text=Shared');
      expect(byText.headers.get('etag')).to.equal(byMessage.headers.get('etag'));
      expect(engine.calls).to.equal(1);
    });
  });

  describe('cache and 304', () => {
    it('a repeated request is served from the cache: the engine is not called again', async () => {
      const first = await fetchAudio(service, '/api/tts?text=Once');
      const second = await fetchAudio(service, '/api/tts?text=Once');
      const third = await fetchAudio(service, '/api/tts', postJson({ text: 'Once' }));
      expect(engine.calls).to.equal(1);
      expect(Buffer.from(second.bytes).equals(Buffer.from(first.bytes))).to.equal(true);
      expect(third.headers.get('etag')).to.equal(first.headers.get('etag'));
    });

    it('voice, format, speed and text each make a different entry', async () => {
      for (const query of ['text=A', 'text=B', 'text=A&voice=beta', 'text=A&format=mp3', 'text=A&speed=2', 'text=A&speed=1.0']) {
        expect((await fetchAudio(service, `/api/tts?${query}`)).status).to.equal(200);
      }
      expect(engine.calls).to.equal(5); // speed=1.0 is speed 1, already cached
    });

    it('identical requests at the same time share one synthesis', async () => {
      engine.hold();
      const pending = [1, 2, 3].map(() => fetchAudio(service, '/api/tts?text=Together'));
      await waitFor(() => engine.running === 1);
      engine.release();
      const results = await Promise.all(pending);
      expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200]);
      expect(engine.calls).to.equal(1);
    });

    it('If-None-Match with the ETag gives 304 without a body and without synthesizing', async () => {
      const first = await fetchAudio(service, '/api/tts?text=Cached%20audio');
      const etag = first.headers.get('etag')!;
      for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const res = await fetchAudio(service, '/api/tts?text=Cached%20audio', { headers: { 'if-none-match': header } });
        expect(res.status, header).to.equal(304);
        expect(res.bytes.length).to.equal(0);
        expect(res.headers.get('etag')).to.equal(etag);
        expect(res.headers.get('cache-control')).to.equal('public, max-age=86400');
      }
      expect(engine.calls).to.equal(1);
    });

    it('304 needs no synthesis at all: the ETag is known before the audio is made', async () => {
      const fresh = new FakeSpeechSynthesizer();
      const other = await startTestService({}, { speechSynthesizer: fresh });
      try {
        const etag = (await fetchAudio(service, '/api/tts?text=Known')).headers.get('etag')!;
        const res = await fetchAudio(other, '/api/tts?text=Known', { headers: { 'if-none-match': etag } });
        expect(res.status).to.equal(304);
        expect(fresh.calls).to.equal(0);
      } finally {
        await other.stop();
      }
    });

    it('a stale If-None-Match, and any If-None-Match on POST, gives the audio', async () => {
      const stale = await fetchAudio(service, '/api/tts?text=New', { headers: { 'if-none-match': '"stale"' } });
      expect(stale.status).to.equal(200);
      const etag = stale.headers.get('etag')!;
      const post = await fetchAudio(service, '/api/tts', { ...postJson({ text: 'New' }), headers: { 'content-type': 'application/json', 'if-none-match': etag } });
      expect(post.status).to.equal(200);
      expect(post.bytes.length).to.be.above(44);
    });
  });

  describe('400', () => {
    const cases: [string, string, string][] = [
      ['neither text nor message_id', '/api/tts', 'text: is required (or give message_id)'],
      ['both text and message_id', '/api/tts?text=a&message_id=m', 'text: give either text or message_id, not both'],
      ['empty text', '/api/tts?text=', 'text: must be a non-empty string'],
      ['blank text', '/api/tts?text=%20%20%0A', 'text: must be a non-empty string'],
      ['text over 4096 code points', `/api/tts?text=${encodeURIComponent('😀'.repeat(4097))}`, 'text: must be at most 4096 characters'],
      ['unknown format', '/api/tts?text=a&format=ogg', 'format: must be "wav" or "mp3"'],
      ['speed below 0.5', '/api/tts?text=a&speed=0.4', 'speed: must be a number from 0.5 to 2.0'],
      ['speed above 2.0', '/api/tts?text=a&speed=2.01', 'speed: must be a number from 0.5 to 2.0'],
      ['speed not a number', '/api/tts?text=a&speed=fast', 'speed: must be a number from 0.5 to 2.0'],
      ['empty speed', '/api/tts?text=a&speed=', 'speed: must be a number from 0.5 to 2.0'],
      ['unknown voice', '/api/tts?text=a&voice=nobody', 'voice: must be one of the voices listed by GET /api/tts/voices'],
      ['message_id with a control character', '/api/tts?message_id=a%01b', `message_id: ${ID_RULE}`],
      ['text given twice', '/api/tts?text=a&text=b', 'text: must be given once'],
      ['text with a NUL character', '/api/tts?text=a%00b', `text: ${UNSTORABLE_RULE}`],
    ];
    for (const [what, path, detail] of cases) {
      it(`GET: ${what}`, async () => {
        const res = await fetchAudio(service, path);
        expect(res.status).to.equal(400);
        expect(res.json).to.include({ status: 'error' });
        expect(res.json!.detail).to.equal(detail);
      });
    }

    it('text of exactly 4096 code points (emoji count once) is accepted', async () => {
      const res = await fetchAudio(service, '/api/tts', postJson({ text: '😀'.repeat(4096) }));
      expect(res.status).to.equal(200);
    });

    const bodies: [string, unknown, string][] = [
      ['missing text', {}, 'text: is required'],
      ['text not a string', { text: 5 }, 'text: must be a non-empty string'],
      ['speed as a string', { text: 'a', speed: '1' }, 'speed: must be a number from 0.5 to 2.0'],
      ['format upper-case', { text: 'a', format: 'MP3' }, 'format: must be "wav" or "mp3"'],
      ['voice empty', { text: 'a', voice: '' }, 'voice: must be one of the voices listed by GET /api/tts/voices'],
      ['voice unknown', { text: 'a', voice: 'gamma' }, 'voice: must be one of the voices listed by GET /api/tts/voices'],
      ['an array', ['text'], 'body: must be a JSON object'],
      ['text with a NUL character', { text: 'a\u0000b' }, `text: ${UNSTORABLE_RULE}`],
      ['text with a lone surrogate', { text: 'a\ud800b' }, `text: ${UNSTORABLE_RULE}`],
      ['voice with a lone surrogate', { text: 'a', voice: 'en\udc00' }, `voice: ${UNSTORABLE_RULE}`],
    ];
    for (const [what, body, detail] of bodies) {
      it(`POST: ${what}`, async () => {
        const res = await fetchAudio(service, '/api/tts', postJson(body));
        expect(res.status).to.equal(400);
        expect(res.json!.detail).to.equal(detail);
      });
    }

    it('POST: malformed JSON is 400, another content type 415', async () => {
      const malformed = await fetchAudio(service, '/api/tts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":' });
      expect(malformed.status).to.equal(400);
      expect(malformed.json!.detail).to.equal('body: malformed JSON');
      const form = await fetchAudio(service, '/api/tts', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
      expect(form.status).to.equal(415);
    });

    it('a stored message longer than 4096 characters', async () => {
      await service.post('/api/chat/saveMessage', { user_id: 'u', conversation_id: 'c', role: 'assistant', text: 'x'.repeat(5000), message_id: 'm-long' });
      const res = await fetchAudio(service, '/api/tts?message_id=m-long&user_id=u');
      expect(res.status).to.equal(400);
      expect(res.json!.detail).to.match(/^message_id: the message is 5000 characters long; at most 4096/);
      expect(engine.calls).to.equal(0);
    });
  });

  it('404 for an unknown message_id', async () => {
    const res = await fetchAudio(service, '/api/tts?message_id=never-stored&user_id=u');
    expect(res.status).to.equal(404);
    expect(res.json).to.deep.equal({ detail: 'message "never-stored" not found', status: 'error' });
  });

  it('404 for another user\'s message, exactly as for an unknown one, and nothing is synthesized', async () => {
    await service.post('/api/chat/saveMessage', { user_id: 'owner', conversation_id: 'c-own', role: 'assistant', text: 'Private words', message_id: 'm-own' });
    const res = await fetchAudio(service, '/api/tts?message_id=m-own&user_id=intruder');
    expect(res.status).to.equal(404);
    expect(res.json).to.deep.equal({ detail: 'message "m-own" not found', status: 'error' });
    expect(engine.calls).to.equal(0);
    expect((await fetchAudio(service, '/api/tts?message_id=m-own&user_id=owner')).status).to.equal(200);
  });

  it('400 for message_id without user_id', async () => {
    const res = await fetchAudio(service, '/api/tts?message_id=m-any');
    expect(res.status).to.equal(400);
    expect(res.json!.detail).to.equal("user_id: is required with message_id (the message's owner)");
  });

  it('405 with Allow for another method', async () => {
    const res = await fetchAudio(service, '/api/tts', { method: 'PUT' });
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.include('GET').and.include('POST');
  });

  it('502 when the engine fails; nothing cached, no ETag on the error', async () => {
    engine.failure = new SpeechEngineFailedError('the speech API at example.test answered 500 Internal Server Error');
    const res = await fetchAudio(service, '/api/tts?text=Broken');
    expect(res.status).to.equal(502);
    expect(res.json).to.deep.equal({ detail: 'the speech API at example.test answered 500 Internal Server Error', status: 'error' });
    expect(res.headers.get('etag')).to.equal(null);
    engine.failure = undefined;
    expect((await fetchAudio(service, '/api/tts?text=Broken')).status).to.equal(200);
  });

  describe('GET /api/tts/voices', () => {
    it('lists the engine\'s voices and its default', async () => {
      const res = await service.call('GET', '/api/tts/voices');
      expect(res.status).to.equal(200);
      expect(res.json).to.deep.equal({ status: 'ok', default_voice: 'alpha', voices: FakeSpeechSynthesizer.VOICES });
    });
  });
});

describe('text to speech: the persona\'s voice', () => {
  it('is the default voice when the engine knows it', async () => {
    const engine = new FakeSpeechSynthesizer();
    const service = await startTestService({}, { speechSynthesizer: engine, personaSource: personaWithVoice('beta') });
    try {
      expect((await service.call('GET', '/api/tts/voices')).json.default_voice).to.equal('beta');
      await fetchAudio(service, '/api/tts?text=Hi');
      expect(engine.requests[0]!.voice).to.equal('beta');
    } finally {
      await service.stop();
    }
  });

  it('is ignored (the service starts, with a warning) when the engine does not know it', async () => {
    const engine = new FakeSpeechSynthesizer();
    const service = await startTestService({}, { speechSynthesizer: engine, personaSource: personaWithVoice('en-us+f3') });
    try {
      expect((await service.call('GET', '/api/tts/voices')).json.default_voice).to.equal('alpha');
    } finally {
      await service.stop();
    }
  });
});

describe('text to speech: capacity and time limits', () => {
  it('503 with Retry-After once TTS_MAX_CONCURRENT run and TTS_MAX_QUEUE wait; the rest then complete', async () => {
    const engine = new FakeSpeechSynthesizer();
    const service = await startTestService({ TTS_MAX_CONCURRENT: '1', TTS_MAX_QUEUE: '1' }, { speechSynthesizer: engine });
    try {
      engine.hold();
      const running = fetchAudio(service, '/api/tts?text=one');
      await waitFor(() => engine.running === 1);
      const waiting = fetchAudio(service, '/api/tts?text=two');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const refused = await fetchAudio(service, '/api/tts?text=three');
      expect(refused.status).to.equal(503);
      expect(refused.headers.get('retry-after')).to.equal('2');
      expect(refused.json!.detail).to.match(/^speech synthesis is busy/);
      expect((await service.call('GET', '/v1/health')).status).to.equal(200);
      engine.release();
      expect((await running).status).to.equal(200);
      expect((await waiting).status).to.equal(200);
      expect(engine.calls).to.equal(2);
    } finally {
      engine.release();
      await service.stop();
    }
  });

  it('504 when the engine takes longer than TTS_TIMEOUT_MS, and the engine is told to stop', async () => {
    const engine = new FakeSpeechSynthesizer();
    const service = await startTestService({ TTS_TIMEOUT_MS: '200' }, { speechSynthesizer: engine });
    try {
      engine.hold();
      const started = Date.now();
      const res = await fetchAudio(service, '/api/tts?text=Slow');
      expect(res.status).to.equal(504);
      expect(res.json).to.deep.equal({ detail: 'speech synthesis took longer than 200 ms', status: 'error' });
      expect(Date.now() - started).to.be.below(3000);
      await waitFor(() => engine.running === 0);
    } finally {
      engine.release();
      await service.stop();
    }
  });

  it('504 too when the wait in the queue passes TTS_TIMEOUT_MS', async () => {
    const engine = new FakeSpeechSynthesizer();
    const service = await startTestService({ TTS_TIMEOUT_MS: '300', TTS_MAX_CONCURRENT: '1' }, { speechSynthesizer: engine });
    try {
      engine.hold();
      engine.ignoreAbort = true; // the first keeps its slot past the second's deadline
      const first = fetchAudio(service, '/api/tts?text=first');
      await waitFor(() => engine.running === 1);
      const second = await fetchAudio(service, '/api/tts?text=second');
      expect(second.status).to.equal(504);
      expect((await first).status).to.equal(504);
      expect(engine.calls).to.equal(1); // the second never reached the engine
    } finally {
      engine.release();
      await service.stop();
    }
  });
});

describe('text to speech: start-up checks', () => {
  it('an unknown TTS_VOICE stops start-up with one line naming it', async () => {
    const error = await startTestService({ TTS_VOICE: 'nobody' }, { speechSynthesizer: new FakeSpeechSynthesizer() }).then(
      async (service) => {
        await service.stop();
        return null;
      },
      (e: unknown) => e as Error,
    );
    expect(error?.message).to.equal('invalid configuration: TTS_VOICE "nobody" is not a voice of the espeak speech engine (GET /api/tts/voices lists them)');
  });

  it('a known TTS_VOICE becomes the default voice', async () => {
    const engine = new FakeSpeechSynthesizer();
    const service = await startTestService({ TTS_VOICE: 'beta' }, { speechSynthesizer: engine });
    try {
      await fetchAudio(service, '/api/tts?text=Hi');
      // The fake engine ignores TTS_VOICE (it is the engine's own setting); the check passed.
      expect(engine.calls).to.equal(1);
    } finally {
      await service.stop();
    }
  });
});

describe('text to speech over HTTP, with the embedded engine (no configuration)', function () {
  this.timeout(30_000);
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service?.stop());

  it('GET /api/tts?text=Hello gives a playable 22,050 Hz mono WAV of about half a second', async () => {
    const res = await fetchAudio(service, '/api/tts?text=Hello');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('audio/wav');
    const wav = parseWav(res.bytes);
    expect(wav).to.include({ audioFormat: 1, channels: 1, sampleRate: 22_050, bitsPerSample: 16 });
    expect(wav.durationS).to.be.within(5 * SECONDS_PER_CHARACTER.min, 5 * SECONDS_PER_CHARACTER.max);
  });

  it('format=mp3 gives an MP3 that decodes to about the same length', async () => {
    const res = await fetchAudio(service, '/api/tts?text=Hello&format=mp3');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('audio/mpeg');
    const mp3 = await decodeMp3(res.bytes);
    expect(mp3.errors).to.equal(0);
    expect(mp3.sampleRate).to.equal(22_050);
    expect(mp3.durationS).to.be.within(0.15, 1.5);
  });

  it('lists eSpeak NG\'s languages and the variants of the default voice, default en-us', async () => {
    const res = await service.call('GET', '/api/tts/voices');
    expect(res.status).to.equal(200);
    expect(res.json.default_voice).to.equal('en-us');
    const ids = res.json.voices.map((v: { id: string }) => v.id);
    expect(ids).to.include.members(['en-us', 'en-gb', 'fr-fr', 'de', 'en-us+f3']);
    expect(res.json.voices.find((v: { id: string }) => v.id === 'en-us')).to.deep.equal({ id: 'en-us', name: 'English (America)', language: 'en-us' });
  });

  it('speaks any language with any listed variant', async () => {
    const res = await fetchAudio(service, '/api/tts?text=Bonjour&voice=fr-fr%2Bf3');
    expect(res.status).to.equal(200);
    parseWav(res.bytes);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

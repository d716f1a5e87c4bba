import { expect } from 'chai';
import { decodeMp3, parseWav, SECONDS_PER_CHARACTER } from '../support/audio.js';
import { FakeSpeechSynthesizer } from '../support/fake-speech-synthesizer.js';
import { startTestService, type TestService } from '../support/service.js';
import { openStream, readStream, type StreamedEvent } from '../support/sse-client.js';

const ask = (extra: object = {}) => ({ text: 'Hello! I feel a bit tired today. Can you tell me about yourself?', user_id: 'u-speech', ...extra });
const audioOf = (event: StreamedEvent) => new Uint8Array(Buffer.from(event.json.audio, 'base64'));

describe('POST /v1/chat/stream with "speech": the reply spoken while it streams', function () {
  this.timeout(30_000);

  describe('fake engine', () => {
    let service: TestService;
    let engine: FakeSpeechSynthesizer;
    beforeEach(async () => {
      engine = new FakeSpeechSynthesizer();
      service = await startTestService({ OFFLINE_STREAM_DELAY_MS: '5' }, { speechSynthesizer: engine });
    });
    afterEach(() => service.stop());

    it('one audio event per sentence, in order, before done; their texts concatenate to the reply', async () => {
      const { status, events } = await readStream(`${service.url}/v1/chat/stream`, ask({ speech: {} }));
      expect(status).to.equal(200);
      const names = events.map((e) => e.event);
      expect(names[0]).to.equal('start');
      expect(names.at(-1)).to.equal('done');
      const audio = events.filter((e) => e.event === 'audio');
      const reply = events.at(-1)!.json.response as string;
      expect(audio.length).to.be.above(1);
      expect(audio.map((e) => e.json.index)).to.deep.equal(audio.map((_, i) => i));
      expect(audio.map((e) => e.json.text).join('')).to.equal(reply);
      expect(events.filter((e) => e.event === 'delta').map((e) => e.json.text).join('')).to.equal(reply);
      for (const event of audio) {
        expect(Object.keys(event.json).sort()).to.deep.equal(['audio', 'format', 'index', 'text']);
        expect(event.json.format).to.equal('mp3');
        expect((await decodeMp3(audioOf(event))).errors).to.equal(0);
      }
      expect(engine.requests.every((r) => r.format === 'mp3' && r.voice === 'alpha')).to.equal(true);
    });

    it('audio is interleaved with the deltas: the first sentence is spoken before the reply has ended', async () => {
      const { events } = await readStream(`${service.url}/v1/chat/stream`, ask({ speech: { format: 'wav', voice: 'beta' } }));
      const firstAudio = events.findIndex((e) => e.event === 'audio');
      const lastDelta = events.map((e) => e.event).lastIndexOf('delta');
      expect(firstAudio).to.be.above(0).and.below(lastDelta);
      expect(engine.requests[0]).to.include({ format: 'wav', voice: 'beta', speed: 1 });
    });

    it('audio events carry no SSE id', async () => {
      const opened = await openStream(`${service.url}/v1/chat/stream`, ask({ speech: { format: 'wav' } }));
      for await (const _ of opened.events);
      const frames = opened.raw().split('\n\n').filter((frame) => frame.includes('event: audio'));
      expect(frames.length).to.be.above(0);
      for (const frame of frames) expect(frame).not.to.match(/^id:/m);
    });

    it('without "speech" (or with null) there is no audio', async () => {
      for (const body of [ask(), ask({ speech: null })]) {
        const { events } = await readStream(`${service.url}/v1/chat/stream`, body);
        expect(events.some((e) => e.event === 'audio')).to.equal(false);
      }
      expect(engine.calls).to.equal(0);
    });

    it('a bad voice or format is a 400 naming the field, before anything is stored', async () => {
      for (const [speech, detail] of [
        [{ voice: 'nobody' }, 'speech.voice: must be one of the voices listed by GET /api/tts/voices'],
        [{ format: 'ogg' }, 'speech.format: must be "wav" or "mp3"'],
        ['loud', 'speech: must be a JSON object'],
      ] as const) {
        const res = await service.post('/v1/chat/stream', ask({ speech, conversation_id: 'c-never' }));
        expect(res.status).to.equal(400);
        expect(res.json.detail).to.equal(detail);
      }
      const stored = await service.post('/api/chat/loadMessages', { user_id: 'u-speech', conversation_id: 'c-never' });
      expect(stored.json.messages).to.deep.equal([]);
    });

    it('if speech fails mid-reply, the audio stops and the reply still ends with done', async () => {
      engine.failure = new Error('engine down');
      const { events } = await readStream(`${service.url}/v1/chat/stream`, ask({ speech: {} }));
      expect(events.at(-1)!.event).to.equal('done');
      expect(events.some((e) => e.event === 'audio')).to.equal(false);
    });
  });

  it('with the embedded engine: each audio is a playable file of its sentence', async () => {
    const service = await startTestService();
    try {
      const { events } = await readStream(`${service.url}/v1/chat/stream`, ask({ speech: { format: 'wav', voice: 'en-gb' } }));
      const audio = events.filter((e) => e.event === 'audio');
      expect(audio.map((e) => e.json.text).join('')).to.equal(events.at(-1)!.json.response);
      for (const event of audio) {
        const wav = parseWav(audioOf(event));
        expect(wav.durationS / [...event.json.text.trim()].length).to.be.within(SECONDS_PER_CHARACTER.min, SECONDS_PER_CHARACTER.max);
      }
    } finally {
      await service.stop();
    }
  });
});

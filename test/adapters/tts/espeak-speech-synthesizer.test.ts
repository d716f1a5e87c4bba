import { expect } from 'chai';
import { EspeakSpeechSynthesizer, speechParts } from '../../../src/adapters/tts/espeak/espeak-speech-synthesizer.js';
import type { SpeechRequest } from '../../../src/application/ports/speech-synthesizer.js';
import { ScriptedEspeak } from '../../support/scripted-espeak.js';

const FIRST = 'Here is the first sentence. ';
const TEXT = FIRST + 'Then the speech goes on and on, sentence after sentence. '.repeat(30);

describe('eSpeak NG speech synthesizer: the order of its work (scripted engine)', () => {
  let engine: ScriptedEspeak;
  let synthesizer: EspeakSpeechSynthesizer;
  beforeEach(() => {
    engine = new ScriptedEspeak();
    synthesizer = new EspeakSpeechSynthesizer(engine, engine);
  });
  afterEach(() => engine.release());

  const request = (format: SpeechRequest['format']): SpeechRequest => ({ text: TEXT, voice: 'en-us', speed: 1, format });

  it('the text is spoken in at least three parts, the first being its first sentence alone', () => {
    const parts = speechParts(TEXT);
    expect(parts.length).to.be.at.least(3);
    expect(parts[0]).to.equal(FIRST);
  });

  for (const format of ['mp3', 'wav'] as const) {
    it(`${format}: the first sentence's audio is yielded while the rest is still being spoken`, async () => {
      engine.holdFrom(1);
      const pieces = synthesizer.synthesize(request(format))[Symbol.asyncIterator]();
      const first = await pieces.next();
      expect(first.done).to.equal(false);
      expect(first.value.bytes.length).to.be.above(0);
      expect(engine.spoken[0]).to.equal(FIRST);
      expect(engine.events).to.include('speak 0 done');
      expect(engine.events.filter((event) => /^speak [1-9]\d* done$/.test(event))).to.deep.equal([]);
      engine.release();
      for (let next = await pieces.next(); !next.done; next = await pieces.next());
      expect(engine.events).to.include(`speak ${speechParts(TEXT).length - 1} done`);
    });
  }

  it('mp3: each part\'s encoding is asked for before the speech of the part two after it, and in the part\'s order', async () => {
    for await (const chunk of synthesizer.synthesize(request('mp3'))) void chunk;
    const at = (event: string) => engine.events.indexOf(event);
    const parts = speechParts(TEXT).length;
    expect(engine.events.filter((event) => event.startsWith('encode'))).to.deep.equal([...Array(parts).keys()].map((i) => `encode ${i}`));
    expect(at('speak 0 asked')).to.be.below(at('speak 0 done'));
    expect(at('speak 0 done')).to.be.below(at('encode 0'));
    for (let i = 0; i + 2 < parts; i++) expect(at(`encode ${i}`), `part ${i}`).to.be.below(at(`speak ${i + 2} asked`));
  });

  it('an abort while the voices are still being listed (the engine starting) rejects with its reason at once', async () => {
    let listed = () => {};
    engine.listingGate = new Promise((resolve) => (listed = resolve));
    const controller = new AbortController();
    const reason = new Error('deadline passed');
    const pending = synthesizer.synthesize(request('mp3'), controller.signal).next().then(() => null, (e: unknown) => e);
    controller.abort(reason);
    expect(await pending).to.equal(reason);
    expect(engine.events).to.deep.equal([]);
    listed();
  });

  it('warmUp warms the runner and the encoder and lists the voices; speech afterwards lists them no more', async () => {
    await synthesizer.warmUp();
    expect(engine.warmUps).to.equal(2); // the runner's and the encoder's (one object here)
    expect(engine.listings).to.equal(2); // languages and variants
    expect(engine.events).to.include('encode 0'); // a text spoken end to end
    for await (const chunk of synthesizer.synthesize({ ...request('wav'), text: 'Hello.' })) void chunk;
    expect(await synthesizer.findVoice('fr-fr')).to.not.equal(null);
    expect(engine.listings).to.equal(2);
  });
});

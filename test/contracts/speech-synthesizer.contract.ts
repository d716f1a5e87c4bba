import { expect } from 'chai';
import type { SpeechRequest, SpeechSynthesizer } from '../../src/application/ports/speech-synthesizer.js';
import { decodeMp3, parseWav, SECONDS_PER_CHARACTER } from '../support/audio.js';
import { chunksOf, fileOf, streamedBytes } from '../support/speech.js';

export interface SpeechSynthesizerSubject {
  /** An engine that takes at least some tens of milliseconds for a long text, so a test can abort it. */
  synthesizer: SpeechSynthesizer;
  /** Sample rates the engine's files may have. */
  sampleRates: number[];
  /** Strings that must never appear in the engine's name or errors (keys, say). */
  secrets?: string[];
  close(): Promise<void>;
}

export type MakeSpeechSynthesizer = () => Promise<SpeechSynthesizerSubject>;

export interface SpeechSynthesizerCapabilities {
  /** The engine speaks a long text in several pieces, the first before the rest is made. */
  streams?: boolean;
}

const SENTENCE = 'Hello, how are you today? The weather is lovely.';
const length = (text: string) => [...text].length;

/** The behaviour every SpeechSynthesizer must have, whatever engine is behind it. */
export function speechSynthesizerContract(makeSubject: MakeSpeechSynthesizer, capabilities: SpeechSynthesizerCapabilities = {}): void {
  let subject: SpeechSynthesizerSubject;
  let engine: SpeechSynthesizer;
  beforeEach(async () => {
    subject = await makeSubject();
    engine = subject.synthesizer;
  });
  afterEach(() => subject.close());

  const request = (overrides: Partial<SpeechRequest> = {}): SpeechRequest => ({
    text: SENTENCE,
    voice: engine.defaultVoice(),
    speed: 1,
    format: 'wav',
    ...overrides,
  });

  const expectDurationFits = (durationS: number, text: string) => {
    const perCharacter = durationS / length(text);
    expect(perCharacter, `${durationS.toFixed(2)} s for ${length(text)} characters`).to.be.within(SECONDS_PER_CHARACTER.min, SECONDS_PER_CHARACTER.max);
  };

  it('names itself, without secrets', () => {
    expect(engine.engine).to.be.a('string').and.not.equal('');
    for (const secret of subject.secrets ?? []) expect(engine.engine).not.to.include(secret);
  });

  it('lists voices with unique ids, a name and a language', async () => {
    const voices = await engine.voices();
    expect(voices).to.be.an('array').that.is.not.empty;
    expect(new Set(voices.map((v) => v.id)).size).to.equal(voices.length);
    for (const voice of voices) {
      expect(voice.id).to.be.a('string').and.not.equal('');
      expect(voice.name).to.be.a('string').and.not.equal('');
      expect(voice.language).to.be.a('string').and.not.equal('');
    }
  });

  it('finds every listed voice and its default voice, and returns null for an unknown one', async () => {
    const voices = await engine.voices();
    for (const voice of voices.slice(0, 20)) expect(await engine.findVoice(voice.id)).to.deep.equal(voice);
    expect(await engine.findVoice(engine.defaultVoice())).to.not.equal(null);
    expect(await engine.findVoice('no-such-voice-anywhere')).to.equal(null);
  });

  it('makes a valid WAV file (PCM, mono, 16 bit) whose duration fits the text', async () => {
    const facts = parseWav(await fileOf(engine.synthesize(request())));
    expect(facts).to.include({ audioFormat: 1, channels: 1, bitsPerSample: 16 });
    expect(subject.sampleRates).to.include(facts.sampleRate);
    expectDurationFits(facts.durationS, SENTENCE);
  });

  it('makes an MP3 file that decodes, whose duration fits the text', async () => {
    const mp3 = await fileOf(engine.synthesize(request({ format: 'mp3' })));
    const facts = await decodeMp3(mp3);
    expect(facts.errors).to.equal(0);
    expect(subject.sampleRates).to.include(facts.sampleRate);
    expectDurationFits(facts.durationS, SENTENCE);
  });

  it('a one-word text is short, and its duration still fits', async () => {
    const facts = parseWav(await fileOf(engine.synthesize(request({ text: 'Hello' }))));
    expectDurationFits(facts.durationS, 'Hello');
  });

  it('speaks faster at speed 2.0 than at 0.5', async () => {
    const slow = parseWav(await fileOf(engine.synthesize(request({ speed: 0.5 }))));
    const fast = parseWav(await fileOf(engine.synthesize(request({ speed: 2 }))));
    expect(fast.durationS).to.be.below(slow.durationS * 0.6);
  });

  it('speaks with another listed voice', async () => {
    const voices = await engine.voices();
    const other = voices.find((v) => v.id !== engine.defaultVoice())!;
    const facts = parseWav(await fileOf(engine.synthesize(request({ voice: other.id, text: 'One two three.' }))));
    expect(facts.durationS).to.be.above(0.1);
  });

  it('rejects with the signal\'s reason when aborted, while the same text asked at the same time is still being made', async () => {
    const text = SENTENCE.repeat(60).slice(0, 3000);
    const controller = new AbortController();
    const reason = new Error('deadline passed');
    const twinController = new AbortController();
    let twinSettled = false;
    const twin = fileOf(engine.synthesize(request({ text }), twinController.signal)).then(
      () => (twinSettled = true),
      () => (twinSettled = true),
    );
    const pending = fileOf(engine.synthesize(request({ text }), controller.signal));
    setTimeout(() => controller.abort(reason), 30);
    const error = await pending.then(() => null, (e: unknown) => e);
    expect(error).to.equal(reason);
    expect(twinSettled, 'the twin, not aborted, had already ended').to.equal(false);
    twinController.abort(new Error('done with the twin'));
    await twin;
  });

  it('does nothing for a signal already aborted', async () => {
    const reason = new Error('already gone');
    const error = await fileOf(engine.synthesize(request(), AbortSignal.abort(reason))).then(() => null, (e: unknown) => e);
    expect(error).to.equal(reason);
  });

  it('makes raw 24 kHz 16-bit mono pcm whose duration fits the text', async () => {
    if (!engine.formats.includes('pcm')) return;
    const pcm = await fileOf(engine.synthesize(request({ format: 'pcm' })));
    expect(pcm.length % 2).to.equal(0);
    expectDurationFits(pcm.length / 2 / 24_000, SENTENCE);
  });

  if (!capabilities.streams) return;

  it('a long text streams: several pieces whose bytes play as a WAV stream, finished by true sizes', async () => {
    const text = `${SENTENCE} `.repeat(40).trim();
    const chunks = await chunksOf(engine.synthesize(request({ text })));
    const appended = chunks.filter((chunk) => chunk.at === undefined);
    expect(appended.length).to.be.above(1);
    const streamed = streamedBytes(chunks);
    expect(Buffer.from(streamed.subarray(0, 4)).toString('latin1')).to.equal('RIFF');
    expect(new DataView(streamed.buffer, streamed.byteOffset).getUint32(40, true)).to.equal(0xffffffff);
    expectDurationFits(parseWav(await fileOf(engine.synthesize(request({ text })))).durationS, text);
  });

  it('a long text as MP3: the pieces decode as one file whose duration fits', async () => {
    const text = `${SENTENCE} `.repeat(20).trim();
    const facts = await decodeMp3(await fileOf(engine.synthesize(request({ text, format: 'mp3' }))));
    expect(facts.errors).to.equal(0);
    expectDurationFits(facts.durationS, text);
  });
}

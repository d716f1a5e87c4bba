import { expect } from 'chai';
import { EspeakSpeechSynthesizer } from '../../src/adapters/tts/espeak/espeak-speech-synthesizer.js';
import { startSpeech } from '../../src/bootstrap/speech.js';
import { capturedLogger } from '../support/log-capture.js';
import { FakeSpeechSynthesizer } from '../support/fake-speech-synthesizer.js';
import { ScriptedEspeak } from '../support/scripted-espeak.js';
import { killAllServiceProcesses, spawnService, waitForLog } from '../support/service-process.js';

const messages = (lines: string[]) => lines.map((line) => (JSON.parse(line) as { msg: string }).msg);

describe('start-up warms the speech engine, waiting at most TTS_WARMUP_MS', () => {
  let engine: ScriptedEspeak;
  let synthesizer: EspeakSpeechSynthesizer;
  beforeEach(() => {
    engine = new ScriptedEspeak();
    synthesizer = new EspeakSpeechSynthesizer(engine, engine);
  });

  it('waits for a warm-up that ends within the bound: the engine is ready when start-up goes on', async () => {
    const { logger, lines } = capturedLogger();
    await startSpeech(synthesizer, { warmUpMs: 60_000 }, logger);
    expect(engine.warmUps).to.equal(2);
    expect(engine.listings).to.equal(2);
    expect(messages(lines)).to.deep.equal(['speech engine', 'speech engine ready']);
  });

  it('goes on at the bound while the warm-up is still running, which then finishes in the background', async () => {
    let finish!: () => void;
    engine.warmUpGate = new Promise((resolve) => (finish = resolve));
    const { logger, lines } = capturedLogger();
    await startSpeech(synthesizer, { warmUpMs: 20 }, logger);
    expect(messages(lines)).to.deep.equal(['speech engine', 'the speech engine is still warming up after 20 ms (TTS_WARMUP_MS); starting anyway']);
    expect(JSON.parse(lines[1]!)).to.include({ boundMs: 20 });
    finish();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(messages(lines).at(-1)).to.equal('speech engine ready');
  });

  it('TTS_WARMUP_MS=0: does not wait at all (the warm-up still runs)', async () => {
    engine.warmUpGate = new Promise(() => {});
    const { logger, lines } = capturedLogger();
    await startSpeech(synthesizer, { warmUpMs: 0 }, logger);
    expect(messages(lines)).to.deep.equal(['speech engine']);
    expect(engine.warmUps).to.equal(2);
  });

  it('a failed warm-up is a warning, not a failed start-up', async () => {
    engine.warmUpFailure = new Error('no memory for the engine');
    const { logger, lines } = capturedLogger();
    await startSpeech(synthesizer, { warmUpMs: 60_000 }, logger);
    expect(messages(lines)).to.deep.equal(['speech engine', 'the speech engine could not be warmed up; requests will load it']);
    expect(JSON.parse(lines[1]!)).to.include({ detail: 'no memory for the engine' });
  });

  it('another engine (a test\'s, an OpenAI-compatible API) has nothing to warm', async () => {
    const { logger, lines } = capturedLogger();
    await startSpeech(new FakeSpeechSynthesizer(), { warmUpMs: 60_000 }, logger);
    expect(messages(lines)).to.deep.equal(['speech engine']);
  });
});

describe('start-up of the service with the WebAssembly engine (a process of its own)', function () {
  this.timeout(90_000);
  afterEach(killAllServiceProcesses);

  const order = (stdout: string) => messages(stdout.split('\n').filter((line) => line.startsWith('{')));

  it('listens only once the engine is ready: the first request pays for no loading', async () => {
    const run = spawnService({ TTS_ENGINE: 'wasm', TTS_WARMUP_MS: '60000' }); // a bound no loaded machine reaches
    await waitForLog(run, /"msg":"listening on/, 60_000);
    const seen = order(run.output().stdout);
    expect(seen.indexOf('speech engine ready')).to.be.within(0, seen.indexOf(seen.find((msg) => msg.startsWith('listening on'))!));
    expect(await run.stop()).to.equal(0);
  });

  it('with a bound too short for the warm-up, listens first and the engine gets ready after', async () => {
    const run = spawnService({ TTS_ENGINE: 'wasm', TTS_WARMUP_MS: '1' });
    await waitForLog(run, /"msg":"speech engine ready"/, 60_000);
    const seen = order(run.output().stdout);
    const listening = seen.findIndex((msg) => msg.startsWith('listening on'));
    expect(seen.indexOf('the speech engine is still warming up after 1 ms (TTS_WARMUP_MS); starting anyway')).to.be.within(0, listening);
    expect(seen.indexOf('speech engine ready')).to.be.above(listening);
    expect(await run.stop()).to.equal(0);
  });
});

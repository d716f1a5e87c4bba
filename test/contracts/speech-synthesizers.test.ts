import { NativeLameEncoder } from '../../src/adapters/tts/audio/mp3-encoder.js';
import { EspeakSpeechSynthesizer } from '../../src/adapters/tts/espeak/espeak-speech-synthesizer.js';
import { EspeakWorkerPool } from '../../src/adapters/tts/espeak/espeak-worker-pool.js';
import { NativeEspeakRunner } from '../../src/adapters/tts/espeak/native-espeak-runner.js';
import { WasmEspeakRunner } from '../../src/adapters/tts/espeak/wasm-espeak-runner.js';
import { WasmLameEncoder } from '../../src/adapters/tts/espeak/wasm-lame-encoder.js';
import { OpenAiSpeechSynthesizer } from '../../src/adapters/tts/openai/openai-speech-synthesizer.js';
import { FakeSpeechServer } from '../support/fake-speech-server.js';
import { requireNativeSpeech } from '../support/native-speech.js';
import { speechSynthesizerContract } from './speech-synthesizer.contract.js';

describe('eSpeak NG speech synthesizer (WebAssembly, in worker threads, with LAME in WebAssembly)', function () {
  this.timeout(30_000);
  speechSynthesizerContract(async () => {
    const pool = new EspeakWorkerPool(2);
    const synthesizer = new EspeakSpeechSynthesizer(new WasmEspeakRunner(pool), new WasmLameEncoder(pool));
    return { synthesizer, sampleRates: [22_050], close: async () => pool.close() };
  }, { streams: true });
});

// CI installs Debian's espeak-ng and lame (.ci/run); elsewhere, without them, the suite is skipped saying so.
describe('eSpeak NG speech synthesizer (the native espeak-ng and lame programs)', function () {
  this.timeout(30_000);
  let programs: ReturnType<typeof requireNativeSpeech>;
  before(function () {
    programs = requireNativeSpeech(this);
  });
  speechSynthesizerContract(async () => {
    const synthesizer = new EspeakSpeechSynthesizer(new NativeEspeakRunner(programs.espeak), new NativeLameEncoder(programs.lame));
    return { synthesizer, sampleRates: [22_050], close: async () => {} };
  }, { streams: true });
});

describe('OpenAI speech synthesizer, against a local OpenAI-compatible server', () => {
  const apiKey = 'sk-test-secret-key-0123456789';
  speechSynthesizerContract(async () => {
    const fake = await FakeSpeechServer.start();
    fake.latencyMs = 100;
    const synthesizer = new OpenAiSpeechSynthesizer({ model: 'tts-1', baseUrl: fake.baseUrl, apiKey, timeoutMs: 5000, maxRetries: 0 });
    return { synthesizer, sampleRates: [24_000], secrets: [apiKey], close: () => fake.stop() };
  });
});

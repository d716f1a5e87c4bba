import { EspeakSpeechSynthesizer } from '../../src/adapters/tts/espeak/espeak-speech-synthesizer.js';
import { OpenAiSpeechSynthesizer } from '../../src/adapters/tts/openai/openai-speech-synthesizer.js';
import { FakeSpeechServer } from '../support/fake-speech-server.js';
import { speechSynthesizerContract } from './speech-synthesizer.contract.js';

describe('eSpeak NG speech synthesizer (WebAssembly, in worker threads)', function () {
  this.timeout(30_000);
  speechSynthesizerContract(async () => {
    const synthesizer = new EspeakSpeechSynthesizer({ workers: 2 });
    return { synthesizer, sampleRates: [22_050], close: async () => synthesizer.close() };
  });
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

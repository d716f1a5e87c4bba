import { expect } from 'chai';
import { ConfigInvalidError, loadConfig } from '../../src/bootstrap/config.js';

describe('text-to-speech settings', () => {
  it('default: the embedded engine, 64 MiB of cache, 2 at once, 16 waiting, 60 s, start-up waiting up to 5 s for its warm-up', () => {
    expect(loadConfig({}).tts).to.deep.equal({
      provider: 'espeak',
      engine: 'auto',
      voice: undefined,
      cacheBytes: 64 * 1024 * 1024,
      maxConcurrent: 2,
      maxQueue: 16,
      timeoutMs: 60_000,
      warmUpMs: 5_000,
      openai: { baseUrl: undefined, apiKey: undefined, model: 'tts-1', voices: undefined },
    });
  });

  it('TTS_ENGINE chooses how eSpeak NG runs: auto (the default), native or wasm', () => {
    expect(loadConfig({ TTS_ENGINE: 'native' }).tts.engine).to.equal('native');
    expect(loadConfig({ TTS_ENGINE: 'wasm' }).tts.engine).to.equal('wasm');
  });

  it('TTS_WARMUP_MS bounds the wait for the warm-up at start-up; 0 does not wait', () => {
    expect(loadConfig({ TTS_WARMUP_MS: '0' }).tts.warmUpMs).to.equal(0);
    expect(loadConfig({ TTS_WARMUP_MS: '20000' }).tts.warmUpMs).to.equal(20_000);
  });

  it('reads the speech API settings', () => {
    const tts = loadConfig({
      TTS_PROVIDER: 'openai',
      TTS_BASE_URL: 'http://localhost:8880/v1/',
      TTS_API_KEY: 'k',
      TTS_MODEL: 'kokoro',
      TTS_VOICE: 'af_bella',
      TTS_VOICES: 'af_bella, am_adam,',
      TTS_CACHE_BYTES: '0',
      TTS_MAX_CONCURRENT: '4',
      TTS_MAX_QUEUE: '0',
      TTS_TIMEOUT_MS: '5000',
    }).tts;
    expect(tts).to.deep.include({ provider: 'openai', voice: 'af_bella', cacheBytes: 0, maxConcurrent: 4, maxQueue: 0, timeoutMs: 5000 });
    expect(tts.openai).to.deep.equal({ baseUrl: 'http://localhost:8880/v1', apiKey: 'k', model: 'kokoro', voices: ['af_bella', 'am_adam'] });
  });

  for (const [name, value, shown] of [
    ['TTS_PROVIDER', 'festival', '"festival"'],
    ['TTS_ENGINE', 'fast', '"fast"'],
    ['TTS_MAX_CONCURRENT', '0', '"0"'],
    ['TTS_MAX_QUEUE', '-1', '"-1"'],
    ['TTS_TIMEOUT_MS', 'soon', '"soon"'],
    ['TTS_WARMUP_MS', '-5', '"-5"'],
    ['TTS_CACHE_BYTES', '1.5', '"1.5"'],
    ['TTS_BASE_URL', 'ftp://x', 'a hidden value'],
    ['TTS_BASE_URL', 'https://user:pw@example.com/v1', 'a hidden value'],
  ]) {
    it(`refuses ${name}=${value} with one line naming it`, () => {
      expect(() => loadConfig({ [name!]: value })).to.throw(ConfigInvalidError, new RegExp(`^invalid configuration: ${name} .*\\(got ${shown!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)$`));
    });
  }
});

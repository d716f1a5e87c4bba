import { expect } from 'chai';
import { loadConfig } from '../../src/bootstrap/config.js';
import { Lifetime } from '../../src/bootstrap/lifetime.js';
import { speechSynthesizerFor } from '../../src/bootstrap/speech.js';
import { SpeechEngineFailedError } from '../../src/domain/errors.js';
import { requireNativeSpeech } from '../support/native-speech.js';

describe('the speech engine TTS_ENGINE chooses', () => {
  const engineFor = async (TTS_ENGINE: string) => {
    const lifetime = new Lifetime();
    const synthesizer = speechSynthesizerFor(loadConfig({ TTS_ENGINE }).tts, lifetime);
    await lifetime.close();
    return synthesizer.engine;
  };

  it('wasm: eSpeak NG and LAME as WebAssembly, whatever is installed', async () => {
    expect(await engineFor('wasm')).to.match(/^espeak-ng@[\d.]+ wasm \+ lame wasm-media-encoders@[\d.]+ r\d+$/);
  });

  it('native and auto: the installed espeak-ng and lame (as in CI; skipped where they are not installed)', async function () {
    requireNativeSpeech(this);
    expect(await engineFor('native')).to.match(/^espeak-ng [\d.]+ native \+ lame [\d.]+ native r\d+$/);
    expect(await engineFor('auto')).to.equal(await engineFor('native'));
  });

  it("the WebAssembly build's worker threads are the lifetime's: once it is closed, the engine refuses work", async () => {
    const lifetime = new Lifetime();
    const synthesizer = speechSynthesizerFor(loadConfig({ TTS_ENGINE: 'wasm' }).tts, lifetime);
    await lifetime.close();
    const failure = await (async () => {
      for await (const chunk of synthesizer.synthesize({ text: 'Hello.', voice: 'en-us', format: 'wav', speed: 1 })) void chunk;
    })().then(() => null, (error: unknown) => error);
    expect(failure).to.be.instanceOf(SpeechEngineFailedError);
    expect((failure as Error).message).to.match(/shutting down/);
  });
});

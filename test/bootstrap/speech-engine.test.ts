import { expect } from 'chai';
import { loadConfig } from '../../src/bootstrap/config.js';
import { Lifetime } from '../../src/bootstrap/lifetime.js';
import { speechSynthesizerFor } from '../../src/bootstrap/speech.js';

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

  it('native and auto: the installed espeak-ng and lame (installed here, as in CI)', async () => {
    expect(await engineFor('native')).to.match(/^espeak-ng [\d.]+ native \+ lame [\d.]+ native r\d+$/);
    expect(await engineFor('auto')).to.equal(await engineFor('native'));
  });
});

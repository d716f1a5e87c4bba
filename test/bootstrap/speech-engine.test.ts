import { expect } from 'chai';
import { loadConfig } from '../../src/bootstrap/config.js';
import { closeSpeechSynthesizer, speechSynthesizerFor } from '../../src/bootstrap/speech.js';

describe('the speech engine TTS_ENGINE chooses', () => {
  const engineFor = (TTS_ENGINE: string) => {
    const synthesizer = speechSynthesizerFor(loadConfig({ TTS_ENGINE }).tts);
    closeSpeechSynthesizer(synthesizer);
    return synthesizer.engine;
  };

  it('wasm: eSpeak NG and LAME as WebAssembly, whatever is installed', () => {
    expect(engineFor('wasm')).to.match(/^espeak-ng@[\d.]+ wasm \+ lame wasm-media-encoders@[\d.]+ r\d+$/);
  });

  it('native and auto: the installed espeak-ng and lame (installed here, as in CI)', () => {
    expect(engineFor('native')).to.match(/^espeak-ng [\d.]+ native \+ lame [\d.]+ native r\d+$/);
    expect(engineFor('auto')).to.equal(engineFor('native'));
  });
});

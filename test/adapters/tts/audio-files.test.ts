import { expect } from 'chai';
import { looksLikeMp3 } from '../../../src/adapters/tts/audio/mp3.js';
import { trimSilence } from '../../../src/adapters/tts/audio/silence.js';
import { monoSamples, monoWav, readWav, WavInvalidError, writeWav } from '../../../src/adapters/tts/audio/wav.js';
import { makeMp3, makeWav, parseWav } from '../../support/audio.js';

describe('audio files', () => {
  it('writes mono 16-bit WAV files that parse back to the same samples', () => {
    const samples = Int16Array.from([0, 1, -1, 32767, -32768]);
    const file = monoWav(samples, 22_050);
    expect(parseWav(file)).to.include({ audioFormat: 1, channels: 1, sampleRate: 22_050, bitsPerSample: 16, dataBytes: 10 });
    expect([...monoSamples(readWav(file))]).to.deep.equal([...samples]);
  });

  it('reads a streamed WAV (sizes 0xFFFFFFFF) up to the end of the file, and rewrites true sizes', () => {
    const streamed = makeWav(0.5, 24_000, 0xffffffff);
    const audio = readWav(streamed);
    expect(audio.data.length).to.equal(24_000);
    expect(parseWav(writeWav(audio)).durationS).to.be.closeTo(0.5, 0.001);
  });

  it('skips chunks it does not know, and drops a half frame at the end', () => {
    const wav = Buffer.from(makeWav(0.01, 8000));
    const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([3, 0, 0, 0]), Buffer.from('abc'), Buffer.from([0])]);
    const withList = Buffer.concat([wav.subarray(0, 36), list, wav.subarray(36), Buffer.from([7])]);
    const audio = readWav(new Uint8Array(withList));
    expect(audio.data.length).to.equal(160);
  });

  for (const [what, bytes] of [
    ['not RIFF', new TextEncoder().encode('<html>nope</html>')],
    ['empty', new Uint8Array(0)],
    ['no data chunk', makeWav(0.01).subarray(0, 36)],
  ] as const) {
    it(`refuses ${what}`, () => {
      expect(() => readWav(bytes)).to.throw(WavInvalidError);
    });
  }

  it('recognises MP3 files (frame sync or ID3) and nothing else', () => {
    expect(looksLikeMp3(makeMp3(0.2))).to.equal(true);
    expect(looksLikeMp3(new TextEncoder().encode('ID3\u0004rest'))).to.equal(true);
    expect(looksLikeMp3(makeWav(0.1))).to.equal(false);
    expect(looksLikeMp3(new Uint8Array([0xff]))).to.equal(false);
  });

  it('trims the silence around speech, keeping a little on each side', () => {
    const rate = 1000;
    const samples = new Int16Array(1000);
    samples.fill(5000, 400, 500); // sound from 0.4 s to 0.5 s
    const trimmed = trimSilence(samples, rate, 60);
    expect(trimmed.length).to.equal(100 + 2 * 60);
    expect(trimSilence(new Int16Array(1000), rate, 60).length).to.equal(60);
  });
});

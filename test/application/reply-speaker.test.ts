import { expect } from 'chai';
import fc from 'fast-check';
import type { SpeechRequest } from '../../src/application/ports/speech-synthesizer.js';
import { ReplySpeaker, type SpokenSentence } from '../../src/application/services/reply-speaker.js';

const VOICE = { voice: 'alpha', format: 'mp3' as const, speed: 1 };

/** A speech engine whose audio is the text's bytes; it records how many syntheses overlap. */
function fakeSpeech() {
  const state = { running: 0, most: 0, requests: [] as SpeechRequest[], failOn: undefined as string | undefined };
  const speak = async (request: SpeechRequest) => {
    state.requests.push(request);
    state.running++;
    state.most = Math.max(state.most, state.running);
    await new Promise((resolve) => setTimeout(resolve, 1));
    state.running--;
    if (state.failOn !== undefined && request.text.includes(state.failOn)) throw new Error(`cannot say ${state.failOn}`);
    return new TextEncoder().encode(request.text);
  };
  return { state, speak };
}

async function collect(speaker: ReplySpeaker): Promise<SpokenSentence[]> {
  const spoken: SpokenSentence[] = [];
  for await (const sentence of speaker) spoken.push(sentence);
  return spoken;
}

describe('ReplySpeaker: speaking a reply while it is written', () => {
  it('one audio per finished sentence, in order, whose texts concatenate to the reply', async () => {
    const { state, speak } = fakeSpeech();
    const speaker = new ReplySpeaker(speak, VOICE);
    const reply = 'Hello there! I am Dr. Smith. Pi is 3.14, roughly.\nBye';
    const spoken = collect(speaker);
    for (const c of reply) speaker.push(c);
    speaker.end();
    const sentences = await spoken;
    expect(sentences.map((s) => s.text)).to.deep.equal(['Hello there! ', 'I am Dr. Smith. ', 'Pi is 3.14, roughly.\n', 'Bye']);
    expect(sentences.map((s) => s.index)).to.deep.equal([0, 1, 2, 3]);
    expect(sentences.every((s) => s.format === 'mp3' && new TextDecoder().decode(s.audio) === s.text)).to.equal(true);
    expect(state.requests[0]).to.deep.equal({ text: 'Hello there! ', voice: 'alpha', format: 'mp3', speed: 1 });
    expect(state.most).to.equal(1); // one synthesis at a time per reply
  });

  it('a sentence is spoken as soon as the next one begins, before the reply ends', async () => {
    const { speak } = fakeSpeech();
    const speaker = new ReplySpeaker(speak, VOICE);
    const iterator = speaker[Symbol.asyncIterator]();
    speaker.push('First sentence. Sec');
    const first = await iterator.next();
    expect(first.value).to.include({ index: 0, text: 'First sentence. ' });
    speaker.push('ond one');
    speaker.end();
    expect((await iterator.next()).value).to.include({ index: 1, text: 'Second one' });
    expect((await iterator.next()).done).to.equal(true);
  });

  it('property: whatever the reply and however it is cut into deltas, the texts concatenate to it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.array(fc.nat({ max: 40 }), { maxLength: 20 }), async (reply, sizes) => {
        const speaker = new ReplySpeaker(async (request) => new TextEncoder().encode(request.text), VOICE);
        const spoken = collect(speaker);
        const chars = [...reply];
        let at = 0;
        for (const size of sizes) {
          speaker.push(chars.slice(at, at + size).join(''));
          at += size;
        }
        speaker.push(chars.slice(at).join(''));
        speaker.end();
        const sentences = await spoken;
        expect(sentences.map((s) => s.text).join('')).to.equal(reply);
        expect(sentences.map((s) => s.index)).to.deep.equal(sentences.map((_, i) => i));
      }),
      { numRuns: 150 },
    );
  });

  it('a failed synthesis ends the iteration with its error, after the sentences before it', async () => {
    const { state, speak } = fakeSpeech();
    state.failOn = 'Two';
    const speaker = new ReplySpeaker(speak, VOICE);
    const spoken: string[] = [];
    speaker.push('One. Two. Three.');
    speaker.end();
    const error = await (async () => {
      for await (const sentence of speaker) spoken.push(sentence.text);
    })().then(() => null, (e: unknown) => e as Error);
    expect(spoken).to.deep.equal(['One. ']);
    expect(error?.message).to.equal('cannot say Two');
  });

  it('stop ends the iteration at once; nothing more is spoken', async () => {
    const { state, speak } = fakeSpeech();
    const speaker = new ReplySpeaker(speak, VOICE);
    const spoken = collect(speaker);
    speaker.push('One. Two. Three. Four');
    speaker.stop();
    speaker.push(' more. Text.');
    speaker.end();
    expect(await spoken).to.deep.equal([]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(state.requests.length).to.be.at.most(1);
  });
});

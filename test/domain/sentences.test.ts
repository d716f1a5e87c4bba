import { expect } from 'chai';
import fc from 'fast-check';
import { MAX_SENTENCE, SentenceSplitter, splitSentences } from '../../src/domain/sentences.js';
import { SPEECH_TEXT_LIMIT } from '../../src/domain/speech.js';

const length = (text: string) => [...text].length;

/** The text fed in parts cut at the given code-point positions. */
function splitInParts(text: string, cuts: number[]): string[] {
  const chars = [...text];
  const at = [...new Set(cuts.map((c) => c % (chars.length + 1)))].sort((a, b) => a - b);
  const splitter = new SentenceSplitter();
  const pieces: string[] = [];
  let from = 0;
  for (const to of [...at, chars.length]) {
    pieces.push(...splitter.push(chars.slice(from, to).join('')));
    from = to;
  }
  return [...pieces, ...splitter.end()];
}

/** Text made of the characters sentence splitting cares about. */
const speechLike = fc
  .array(
    fc.oneof(
      fc.constantFrom('Dr', 'Mr', 'no', 'No', 'J', 'U.S', 'e.g', 'etc', 'Fig', '3', '14', 'and', 'The', 'word', 'ok', '你好', '很好', '😀', 'é', 'e\u0301'),
      fc.constantFrom('.', '!', '?', '…', '...', '?!', '。', '！', '"', '”', ')', '」', ',', ';'),
      fc.constantFrom(' ', '  ', '\n', '\n\n', '\t', '\r\n'),
    ),
    { maxLength: 120 },
  )
  .map((parts) => parts.join(''));

describe('sentences (domain)', () => {
  const cases: [string, string, string[]][] = [
    ['plain sentences', 'Hello there. How are you? Fine!', ['Hello there. ', 'How are you? ', 'Fine!']],
    ['a title and an initial', 'Dr. Smith met J. R. Tolkien. Then he left.', ['Dr. Smith met J. R. Tolkien. ', 'Then he left.']],
    ['numbers', 'Pi is 3.14 or so. It costs $3. Not more.', ['Pi is 3.14 or so. ', 'It costs $3. ', 'Not more.']],
    ['a number after No. and Fig.', 'See No. 5 and Fig. 2 here. Yes.', ['See No. 5 and Fig. 2 here. ', 'Yes.']],
    ['closing quotes', 'He said "Stop." Then he left. (Really.) Yes.', ['He said "Stop." ', 'Then he left. ', '(Really.) ', 'Yes.']],
    ['ellipses', 'Wait... what? Well… Maybe.', ['Wait... what? ', 'Well… ', 'Maybe.']],
    ['a lower-case word after a stop', 'Apples, pears, etc. and plums. Done.', ['Apples, pears, etc. and plums. ', 'Done.']],
    ['line breaks', 'Shopping list:\n- eggs\n- milk\n\nThat is all', ['Shopping list:\n', '- eggs\n', '- milk\n\n', 'That is all']],
    ['CJK full stops without spaces', '你好。我很好！谢谢？', ['你好。', '我很好！', '谢谢？']],
    ['CJK with a closing bracket', '他说「好。」然后走了。', ['他说「好。」', '然后走了。']],
    ['leading and trailing whitespace', '\n  Hello.  Bye.  \n', ['\n  Hello.  ', 'Bye.  \n']],
    ['punctuation before any word stays with the first sentence', '... Hello. World.', ['... Hello. ', 'World.']],
    ['no punctuation at all', 'just some words without an end', ['just some words without an end']],
    ['an abbreviation at the very end', 'Ask Dr.', ['Ask Dr.']],
  ];
  for (const [what, text, expected] of cases) {
    it(`splits ${what}`, () => {
      expect(splitSentences(text)).to.deep.equal(expected);
    });
  }

  it('the empty text has no sentences', () => {
    expect(splitSentences('')).to.deep.equal([]);
  });

  it('cuts a long run without punctuation at whitespace, each piece at most MAX_SENTENCE long', () => {
    const text = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const pieces = splitSentences(text);
    expect(pieces.join('')).to.equal(text);
    expect(pieces.length).to.be.above(5);
    for (const piece of pieces.slice(0, -1)) {
      expect(length(piece)).to.be.at.most(MAX_SENTENCE);
      expect(piece).to.match(/ $/); // cut after whitespace, never inside a word
    }
  });

  it('prefers cutting a long sentence after a comma', () => {
    const clause = 'this clause goes on and on for quite a while, ';
    const text = clause.repeat(10) + 'end.';
    const pieces = splitSentences(text);
    expect(pieces.join('')).to.equal(text);
    for (const piece of pieces.slice(0, -1)) expect(piece).to.match(/, $/);
  });

  it('cuts text without spaces (CJK without stops) between characters, never inside a character', () => {
    const text = '字'.repeat(300) + '😀'.repeat(300) + 'e\u0301'.repeat(300);
    const pieces = splitSentences(text);
    expect(pieces.join('')).to.equal(text);
    for (const piece of pieces) {
      expect(length(piece)).to.be.at.most(MAX_SENTENCE);
      expect(piece.startsWith('\u0301')).to.equal(false);
    }
  });

  it('the 4,096-character maximum: nothing lost, nothing doubled', () => {
    const sentence = 'Dr. Smith paid 3.14 dollars... "Why?" he asked! ';
    const text = sentence.repeat(Math.ceil(SPEECH_TEXT_LIMIT / sentence.length)).slice(0, SPEECH_TEXT_LIMIT);
    const pieces = splitSentences(text);
    expect(pieces.join('')).to.equal(text);
    expect(pieces.length).to.be.above(100);
    expect(pieces.slice(0, 3)).to.deep.equal(['Dr. Smith paid 3.14 dollars... ', '"Why?" he asked! ', 'Dr. Smith paid 3.14 dollars... ']);
  });

  it('property: the pieces concatenate to the text, for any text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 600 }), fc.string({ unit: 'binary', maxLength: 600 }), speechLike), (text) => {
        const pieces = splitSentences(text);
        expect(pieces.join('')).to.equal(text);
        expect(pieces.every((piece) => piece !== '')).to.equal(true);
      }),
      { numRuns: 400 },
    );
  });

  it('property: text that arrives in parts splits exactly as the whole text does', () => {
    fc.assert(
      fc.property(fc.oneof(speechLike, fc.string({ unit: 'grapheme', maxLength: 700 })), fc.array(fc.nat(), { maxLength: 30 }), (text, cuts) => {
        expect(splitInParts(text, cuts)).to.deep.equal(splitSentences(text));
      }),
      { numRuns: 400 },
    );
  });

  it('a finished sentence is given as soon as the next one starts', () => {
    const splitter = new SentenceSplitter();
    expect(splitter.push('Hello there.')).to.deep.equal([]);
    expect(splitter.push(' ')).to.deep.equal([]);
    expect(splitter.push('How')).to.deep.equal(['Hello there. ']);
    expect(splitter.push(' are you?')).to.deep.equal([]);
    expect(splitter.end()).to.deep.equal(['How are you?']);
    expect(splitter.end()).to.deep.equal([]);
  });
});

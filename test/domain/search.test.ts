import { expect } from 'chai';
import { FieldInvalidError } from '../../src/domain/errors.js';
import { assertSearchText, parseSearchQuery } from '../../src/domain/search-query.js';
import { mergeSpans, SNIPPET_LENGTH, snippetOf, substringSpans } from '../../src/domain/snippet.js';

const w = (text: string) => ({ text, kind: 'words' });

describe('search queries', () => {
  it('read words, "phrases", -exclusions and OR as web search engines do', () => {
    expect(parseSearchQuery('red  car')).to.deep.equal({ required: [[w('red')], [w('car')]], excluded: [] });
    expect(parseSearchQuery('"red car" -blue -"big truck"')).to.deep.equal({
      required: [[{ text: 'red car', kind: 'phrase' }]],
      excluded: [w('blue'), { text: 'big truck', kind: 'phrase' }],
    });
    expect(parseSearchQuery('a b OR c d').required).to.deep.equal([[w('a')], [w('b'), w('c')], [w('d')]]);
    expect(parseSearchQuery('a or b OR "c d"').required).to.deep.equal([[w('a'), w('b'), { text: 'c d', kind: 'phrase' }]]);
  });

  it('ignore an OR without a term on each side, empty quotes and a lone dash; an unclosed quote runs to the end', () => {
    expect(parseSearchQuery('OR a OR').required).to.deep.equal([[w('a')]]);
    expect(parseSearchQuery('a OR -b c').required).to.deep.equal([[w('a')], [w('c')]]);
    expect(parseSearchQuery('"" - a')).to.deep.equal({ required: [[w('a')]], excluded: [] });
    expect(parseSearchQuery('"open  quote').required).to.deep.equal([[{ text: 'open quote', kind: 'phrase' }]]);
    expect(parseSearchQuery('e-mail').required).to.deep.equal([[w('e-mail')]]);
  });

  it('look for text in unspaced scripts as a substring', () => {
    expect(parseSearchQuery('机器学习 -北京').required).to.deep.equal([[{ text: '机器学习', kind: 'substring' }]]);
    expect(parseSearchQuery('-北京').excluded).to.deep.equal([{ text: '北京', kind: 'substring' }]);
  });

  it('take 1 to 256 code points of storable text', () => {
    expect(assertSearchText('😀'.repeat(256))).to.have.length(512);
    for (const bad of ['', 'x'.repeat(257), 'a\u0000b', 'a\uD800b']) expect(() => assertSearchText(bad)).to.throw(FieldInvalidError, /^q: /);
  });
});

describe('snippets', () => {
  it('are the whole text, with the matches, when it is short enough', () => {
    expect(snippetOf('hello <b>world</b>', [{ start: 10, end: 15 }])).to.deep.equal({ text: 'hello <b>world</b>', highlights: [{ start: 10, end: 15 }] });
  });

  it('show at most 200 code points around the best match, cut at a word, with ellipses', () => {
    const text = `${'lorem ipsum '.repeat(40)}the needle is here ${'dolor sit '.repeat(40)}`;
    const start = [...text].join('').indexOf('needle');
    const { text: snippet, highlights } = snippetOf(text, [{ start, end: start + 6 }]);
    expect([...snippet].length).to.be.at.most(SNIPPET_LENGTH);
    expect(snippet.startsWith('…')).to.equal(true);
    expect(snippet.endsWith('…')).to.equal(true);
    expect(snippet[1]).to.not.equal(' ');
    expect(highlights).to.have.length(1);
    expect([...snippet].slice(highlights[0]!.start, highlights[0]!.end).join('')).to.equal('needle');
  });

  it('prefer the window holding the most matches, and count in code points', () => {
    const text = `x ${'🎉'.repeat(300)} one ${'.'.repeat(300)} two two two`;
    const spans = [...text.matchAll(/one|two/gu)].map((m) => {
      const start = [...text.slice(0, m.index)].length;
      return { start, end: start + 3 };
    });
    const { text: snippet, highlights } = snippetOf(text, spans);
    expect(highlights).to.have.length(3);
    for (const h of highlights) expect([...snippet].slice(h.start, h.end).join('')).to.equal('two');
  });

  it('merge overlapping spans, and find substrings whatever their case', () => {
    expect(mergeSpans([{ start: 5, end: 9 }, { start: 0, end: 2 }, { start: 8, end: 12 }])).to.deep.equal([{ start: 0, end: 2 }, { start: 5, end: 12 }]);
    expect(substringSpans('🎉 Kube kube', 'KUBE')).to.deep.equal([{ start: 2, end: 6 }, { start: 7, end: 11 }]);
  });
});

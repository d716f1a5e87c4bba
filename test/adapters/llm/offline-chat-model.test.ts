import { expect } from 'chai';
import type { ChatChunk, ChatRequest, HistoryTurn } from '../../../src/application/ports/chat-model.js';
import type { Persona } from '../../../src/domain/persona.js';
import { OfflineChatModel, wordCount } from '../../../src/adapters/llm/offline/offline-chat-model.js';
import { ELIZA_PHRASES, ElizaPhrasesInvalidError, parseElizaPhrases } from '../../../src/adapters/llm/offline/eliza-phrases.js';
import phrases from '../../../src/adapters/llm/offline/phrases.json' with { type: 'json' };
import { aPersona } from '../../support/builders.js';

const persona: Persona = aPersona();

const model = new OfflineChatModel({ streamDelayMs: 0 });

function request(text: string, history: HistoryTurn[] = []): ChatRequest {
  return { persona, history, text };
}

/** Histories of growing length, so every phrase variant of a rule gets exercised. */
function histories(count: number): HistoryTurn[][] {
  return Array.from({ length: count }, (_, n) =>
    Array.from({ length: n }, (_, i): HistoryTurn => ({ role: i % 2 === 0 ? 'user' : 'assistant', text: 'The weather is nice' })),
  );
}

async function replies(text: string, count = 8): Promise<string[]> {
  return Promise.all(histories(count).map(async (history) => (await model.complete(request(text, history))).text));
}

async function collect(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('OfflineChatModel', () => {
  describe('replies', () => {
    it('stops at max output tokens (its words) with finish reason length; the stream says the same', async () => {
      const whole = await model.complete(request('Hello there, who are you?'));
      const cut = await model.complete({ ...request('Hello there, who are you?'), maxOutputTokens: 3 });
      expect(cut.finishReason).to.equal('length');
      expect(wordCount(cut.text)).to.equal(3);
      expect(whole.text.startsWith(cut.text)).to.equal(true);
      expect(cut.usage?.completionTokens).to.equal(3);
      const chunks = await collect(model.stream({ ...request('Hello there, who are you?'), maxOutputTokens: 3 }));
      expect(chunks.map((c) => (c.type === 'delta' ? c.text : '')).join('')).to.equal(cut.text);
      expect(chunks.at(-1)).to.include({ type: 'finish', finishReason: 'length' });
      expect((await model.complete({ ...request('Hello there, who are you?'), maxOutputTokens: 500 })).finishReason).to.equal('stop');
    });

    it('greets with the persona name', async () => {
      for (const text of ['Hello!', 'hi there', 'Good morning']) {
        for (const reply of await replies(text)) expect(reply).to.include('Ada');
      }
    });

    it('answers questions about itself from the persona', async () => {
      for (const reply of await replies('Who are you?')) {
        expect(reply).to.include('Ada').and.to.include('a warm, curious assistant');
      }
      for (const reply of await replies('What is your name?')) expect(reply).to.include('Ada');
      for (const reply of await replies('What can you do?')) {
        expect(reply).to.include('Ada').and.to.match(/curious and kind|warm and concise/);
      }
    });

    it('answers thanks and goodbyes', async () => {
      for (const reply of await replies('Thanks a lot!')) expect(reply).to.match(/welcome|glad|any time/i);
      for (const reply of await replies('ok, bye')) expect(reply).to.match(/goodbye|take care|see you/i);
    });

    it('reflects pronouns in what the user said', async () => {
      for (const reply of await replies('I am sad about my job')) {
        expect(reply).to.include('you are sad about your job').and.not.to.include('my job');
      }
      for (const reply of await replies('My job is hard.')) expect(reply).to.include('your job is hard');
      for (const reply of await replies("I think you don't like me")) expect(reply).to.include("I don't like you");
      for (const reply of await replies('I want you to help me')) expect(reply).to.include('me to help you');
    });

    it('follows keyword rules', async () => {
      for (const reply of await replies("I'm sorry")) expect(reply).to.match(/apologi/i);
      for (const reply of await replies('My mother never calls')) expect(reply).to.include('your mother');
      for (const reply of await replies('I need a holiday')) expect(reply).to.include('a holiday');
      for (const reply of await replies('Do you like computers')) expect(reply).to.match(/machines|program/);
    });

    it('comes back to an earlier statement when nothing matches', async () => {
      const history: HistoryTurn[] = [
        { role: 'user', text: 'I am worried about my exams.' },
        { role: 'assistant', text: 'Why do you say you are worried about your exams?' },
      ];
      const texts = Array.from({ length: 20 }, (_, i) => `the weather is nice ${i}`);
      const all = await Promise.all(texts.map(async (t) => (await model.complete(request(t, history))).text));
      expect(all.some((reply) => reply.includes('you are worried about your exams'))).to.equal(true);
    });
  });

  describe('determinism', () => {
    it('gives the same reply to the same request, without Math.random', async () => {
      const random = Math.random;
      Math.random = () => {
        throw new Error('Math.random must not be used');
      };
      try {
        for (const text of ['I am sad about my job', 'the weather is nice', 'Hello!']) {
          const a = await model.complete(request(text, histories(3)[2]));
          const b = await new OfflineChatModel().complete(request(text, histories(3)[2]));
          expect(b).to.deep.equal(a);
        }
      } finally {
        Math.random = random;
      }
    });

    it('varies its replies across different inputs', async () => {
      expect(new Set(await replies('the weather is nice', 10)).size).to.be.greaterThan(1);
      const texts = ['tell me a story', 'the sky', 'pizza', 'ok then', 'hmm'];
      const all = await Promise.all(texts.map(async (t) => (await model.complete(request(t))).text));
      expect(new Set(all).size).to.be.greaterThan(1);
    });
  });

  describe('odd inputs', () => {
    const odd = [
      '😀😀😀',
      'a'.repeat(10_000),
      'word '.repeat(2_000),
      `I am ${'very '.repeat(2_000)}tired of my work`,
      '?!?...,;',
      '你好，我今天很难过',
      'Привет, как дела?',
      'مرحبا كيف حالك',
      '   ',
      '',
    ];

    it('always gives a short, non-empty plain-text reply', async () => {
      for (const text of odd) {
        for (const reply of await replies(text, 4)) {
          expect(reply.trim(), JSON.stringify(text.slice(0, 20))).to.not.equal('');
          expect(reply).to.equal(reply.trim());
          expect(reply.length).to.be.at.most(600);
          expect(reply).to.not.match(/[{}]/);
        }
      }
    });

    it('copes with a sparse or oversized persona', async () => {
      const odd: Persona = { ...persona, name: 'Z'.repeat(500), description: 'x '.repeat(3000), descriptors: [] };
      for (const text of ['Who are you?', 'What can you do?', 'Hello']) {
        const { text: reply } = await model.complete({ persona: odd, history: [], text });
        expect(reply.length).to.be.within(1, 600);
      }
    });
  });

  describe('complete', () => {
    it('reports the model, the finish reason and word-count usage', async () => {
      const history: HistoryTurn[] = [{ role: 'user', text: 'one two three' }];
      const reply = await model.complete(request('I am sad about my job', history));
      expect(reply.model).to.equal('offline-eliza');
      expect(reply.finishReason).to.equal('stop');
      const promptTokens = 4 + 3 + 6; // persona description + history + text
      const completionTokens = reply.text.split(/\s+/).length;
      expect(reply.usage).to.deep.equal({ promptTokens, completionTokens, totalTokens: promptTokens + completionTokens });
    });

    it('rejects at once when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const error = await model.complete(request('Hello'), controller.signal).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.have.property('name', 'AbortError');

      const reason = new Error('client went away');
      const rejected = await model.complete(request('Hello'), AbortSignal.abort(reason)).catch((e: unknown) => e);
      expect(rejected).to.equal(reason);
    });
  });

  describe('stream', () => {
    it('streams word by word, concatenating to exactly the complete() text, then one finish', async () => {
      for (const text of ['What can you do?', 'I am sad about my job', '😀', 'a'.repeat(10_000)]) {
        const reply = await model.complete(request(text));
        const chunks = await collect(model.stream(request(text)));
        const deltas = chunks.slice(0, -1);
        expect(deltas.length).to.equal(reply.text.split(' ').length);
        expect(deltas.every((c) => c.type === 'delta')).to.equal(true);
        expect(deltas.map((c) => (c.type === 'delta' ? c.text : '')).join('')).to.equal(reply.text);
        expect(chunks.at(-1)).to.deep.equal({ type: 'finish', finishReason: 'stop', model: 'offline-eliza', usage: reply.usage });
      }
    });

    it('stops promptly, with the abort reason, when aborted mid-stream', async () => {
      const slow = new OfflineChatModel({ streamDelayMs: 50 });
      const controller = new AbortController();
      const reason = new Error('stop now');
      const started = Date.now();
      const seen: ChatChunk[] = [];
      const error = await (async () => {
        for await (const chunk of slow.stream(request('What can you do?'), controller.signal)) {
          seen.push(chunk);
          controller.abort(reason);
        }
      })().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.equal(reason);
      expect(seen).to.have.length(1);
      expect(Date.now() - started).to.be.below(500);
    });

    it('yields nothing when the signal is already aborted', async () => {
      const seen: ChatChunk[] = [];
      const error = await (async () => {
        for await (const chunk of model.stream(request('Hello'), AbortSignal.abort())) seen.push(chunk);
      })().catch((e: unknown) => e);
      expect(error).to.have.property('name', 'AbortError');
      expect(seen).to.deep.equal([]);
    });
  });
});

describe('parseElizaPhrases', () => {
  const broken = (patch: (copy: any) => void): unknown => {
    const copy = structuredClone(phrases);
    patch(copy);
    return copy;
  };

  it('accepts the shipped phrases', () => {
    expect(ELIZA_PHRASES.rules.length).to.be.greaterThan(10);
  });

  it('rejects malformed phrases with a clear error', () => {
    const cases: [unknown, RegExp][] = [
      [null, /\(root\)/],
      [broken((p) => delete p.fallbacks), /fallbacks/],
      [broken((p) => (p.rules[0].replies = [])), /rules\.0\.replies/],
      [broken((p) => (p.rules[1].pattern = '(unclosed')), /rules\[1\] \(need\)/],
      [broken((p) => p.intents[0].replies.push('Hi {nmae}')), /unknown placeholder \{nmae\}/],
      [broken((p) => p.rules[0].replies.push('About {1}?')), /rules\[0\] \(sorry\): unknown placeholder \{1\}/],
    ];
    for (const [input, message] of cases) {
      expect(() => parseElizaPhrases(input)).to.throw(ElizaPhrasesInvalidError, message);
    }
  });
});

describe('wordCount (the offline model usage figures)', () => {
  it('counts runs of non-space characters exactly as text.split(/\\s+/u) does, for every kind of space', () => {
    const bySplit = (text: string) => text.split(/\s+/u).filter((w) => w !== '').length;
    const spaces = ['\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];
    const notSpaces = ['a', 'é', '😀', '\u200b', '\u180e', '-'];
    const texts = ['', ' ', 'word', ' two words ', ...spaces.map((s) => `a${s}b`), ...notSpaces.map((c) => `a${c}b c`)];
    for (const text of texts) expect(wordCount(text), JSON.stringify(text)).to.equal(bySplit(text));
  });
});

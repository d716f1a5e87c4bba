import { expect } from 'chai';
import { Conversation, generatedTitle, titleFromFirstMessage } from '../../src/domain/conversation.js';
import { ConversationNotFoundError, FieldInvalidError } from '../../src/domain/errors.js';
import { assertClientId } from '../../src/domain/ids.js';
import { Message } from '../../src/domain/message.js';
import { assertMetadata } from '../../src/domain/metadata.js';
import { Session } from '../../src/domain/session.js';
import { codePointLength, compareCodePoints, hasUnstorableCharacters, storableText, truncateCodePoints, UNSTORABLE_RULE, utf8Length } from '../../src/domain/text.js';
import { aConversation, aMessage, aSession, at } from '../support/builders.js';

describe('domain', () => {
  describe('client ids', () => {
    it('accept 1..128 code points', () => {
      expect(assertClientId('a', 'user_id')).to.equal('a');
      expect(assertClientId('😀'.repeat(128), 'user_id')).to.have.length(256);
    });
    for (const [name, value] of [
      ['empty', ''],
      ['129 code points', 'x'.repeat(129)],
      ['a newline', 'a\nb'],
      ['a C1 control', 'a\u0085b'],
      ['DEL', 'a\u007fb'],
      ['a number', 12],
      ['null', null],
      ['a NUL', 'a\u0000b'],
      ['a lone surrogate', 'a\ud800'],
    ] as const) {
      it(`refuse ${name}, naming the field`, () => {
        expect(() => assertClientId(value, 'session_id')).to.throw(FieldInvalidError, /^session_id: must /);
      });
    }
  });

  it('utf8Length counts the bytes TextEncoder makes, lone surrogates as U+FFFD', () => {
    for (const text of ['', 'ascii', 'é', '€', '😀', 'a😀b€c', '\uD800', 'x\uDC00y', '\uD800\uD800\uDC00', JSON.stringify({ note: 'naïve 😀' })]) {
      expect(utf8Length(text), JSON.stringify(text)).to.equal(new TextEncoder().encode(text).length);
    }
  });

  describe('code-point order', () => {
    it('orders strings as their code points do (PostgreSQL\'s "C" collation), not as their UTF-16 units', () => {
      const strings = ['a', 'a😀', 'a\uFF01', 'a\uE000', 'a\uD7FF', 'ab', '', 'a😀b', 'a\uFFFF', 'a𐀀', 'é', 'Z'];
      const byPoints = (x: string, y: string) => {
        const [p, q] = [Array.from(x, (c) => c.codePointAt(0)!), Array.from(y, (c) => c.codePointAt(0)!)];
        for (let i = 0; i < Math.min(p.length, q.length); i++) if (p[i] !== q[i]) return p[i]! - q[i]!;
        return p.length - q.length;
      };
      for (const x of strings) for (const y of strings) expect(Math.sign(compareCodePoints(x, y)), `${x} ${y}`).to.equal(Math.sign(byPoints(x, y)));
      expect(compareCodePoints('k-\uFF01', 'k-😀')).to.be.below(0); // where '<' says the opposite
      expect('k-\uFF01' < 'k-😀').to.equal(false);
    });
  });

  describe('text no store can keep', () => {
    it('is NUL or a lone surrogate; surrogate pairs and U+FFFD are fine', () => {
      for (const bad of ['\u0000', 'a\ud800', '\udc00a', 'a\ud800\ud800\udc00', 'x\udfff\ud800y']) expect(hasUnstorableCharacters(bad), JSON.stringify(bad)).to.equal(true);
      for (const good of ['', 'plain', '😀', '𝄞\uFFFD', '\ud800\udc00']) expect(hasUnstorableCharacters(good), JSON.stringify(good)).to.equal(false);
      expect(storableText('a\u0000b\ud800c😀\udc00')).to.equal('a\uFFFDb\uFFFDc😀\uFFFD');
    });

    it('is refused by the entities, naming the field', () => {
      expect(() => aMessage(aConversation(), { text: 'a\u0000' })).to.throw(FieldInvalidError, `text: ${UNSTORABLE_RULE}`);
      expect(() => aMessage(aConversation(), { metadata: { ['k\ud800']: 1 } })).to.throw(FieldInvalidError, /^metadata: keys and strings must not contain/);
      expect(() => aSession(aConversation(), { title: 't\udc00' })).to.throw(FieldInvalidError, `title: ${UNSTORABLE_RULE}`);
      expect(() => assertMetadata({ list: ['ok', ['\u0000']] })).to.throw(FieldInvalidError, /^metadata: keys and strings/);
    });
  });

  it('counts and cuts text in code points', () => {
    expect(codePointLength('a😀b')).to.equal(3);
    expect(truncateCodePoints('😀😀😀', 2)).to.equal('😀😀');
  });

  describe('metadata', () => {
    it('must be a bounded JSON object', () => {
      expect(assertMetadata({ a: [1, { b: null }] })).to.deep.equal({ a: [1, { b: null }] });
      expect(() => assertMetadata([])).to.throw(/must be a JSON object/);
      expect(() => assertMetadata(null)).to.throw(/must be a JSON object/);
      expect(() => assertMetadata({ big: 'x'.repeat(17_000) })).to.throw(/at most 16384 bytes/);
      let deep: Record<string, unknown> = {};
      for (let i = 0; i < 40; i++) deep = { deep };
      expect(() => assertMetadata(deep)).to.throw(/nested deeper/);
    });
  });

  describe('a title from the first message', () => {
    it('is the text when it has at most 60 code points, on one line', () => {
      expect(titleFromFirstMessage('  Plan a trip\n to  the mountains ')).to.equal('Plan a trip to the mountains');
      expect(titleFromFirstMessage('😀'.repeat(60))).to.equal('😀'.repeat(60));
    });
    it('is cut at the last word that fits 60 code points', () => {
      // 55 code points of words, then one ending at 60, then one past it
      expect(titleFromFirstMessage(`${'word '.repeat(11)}other one`)).to.equal(`${'word '.repeat(11)}other`);
      expect(titleFromFirstMessage(`${'word '.repeat(11)}another one`)).to.equal('word '.repeat(11).trim());
      expect(codePointLength(titleFromFirstMessage(`${'é'.repeat(58)} ab cdefgh`))).to.be.at.most(60);
    });
    it('without a space to cut at, is its first 60 code points whole: never half of a surrogate pair', () => {
      const title = titleFromFirstMessage('😀'.repeat(70));
      expect(title).to.equal('😀'.repeat(60));
      expect(hasUnstorableCharacters(title)).to.equal(false);
      expect(titleFromFirstMessage(`${'😀'.repeat(30)}x${'🎉'.repeat(40)}`)).to.equal(`${'😀'.repeat(30)}x${'🎉'.repeat(29)}`);
      expect(titleFromFirstMessage('a'.repeat(70))).to.equal('a'.repeat(60));
    });
    it('has no control characters (a terminal escape, a bell), from the message or from a model', () => {
      expect(titleFromFirstMessage('\u001b[31mRed\u0007 alert\u0001 now')).to.equal('[31mRed alert now');
      expect(generatedTitle('"\u001b[31mRed\u0007 title\u0001"')).to.equal('[31mRed title');
      expect(generatedTitle('\u0000\u0007')).to.equal(null);
    });
  });

  describe('Conversation', () => {
    it('belongs to its first user; others are told it does not exist', () => {
      const conversation = Conversation.create({ conversationId: 'c', userId: 'alice', createdAt: new Date() });
      expect(conversation.assertOwnedBy('alice')).to.equal(conversation);
      expect(() => conversation.assertOwnedBy('bob')).to.throw(ConversationNotFoundError);
    });
  });

  describe('Message', () => {
    it('refuses an unknown role, blank text and a bad timestamp', () => {
      const conversation = aConversation();
      expect(() => aMessage(conversation, { role: 'robot' as never })).to.throw(/^role: must be one of/);
      expect(() => aMessage(conversation, { text: '   ' })).to.throw(/^text: must be a non-empty string/);
      expect(() => aMessage(conversation, { createdAt: new Date('nope') })).to.throw(/^created_at/);
    });

    it('restores exactly what it was given', () => {
      const message = aMessage(aConversation(), { metadata: { a: 1 } });
      expect(Message.restore(message.toProps()).toProps()).to.deep.equal(message.toProps());
    });
  });

  describe('Session', () => {
    it('updates only the fields sent, and moves updated_at', () => {
      const session = aSession(aConversation(), { title: 'Old', metadata: { k: 1 } });
      const later = at('2026-12-01T00:00:00.000Z');
      const updated = session.update({ title: undefined, endedAt: at('2026-11-22T11:00:00.000Z') }, later);
      expect(updated.title).to.equal('Old');
      expect(updated.metadata).to.deep.equal({ k: 1 });
      expect(updated.endedAt?.toISOString()).to.equal('2026-11-22T11:00:00.000Z');
      expect(updated.updatedAt).to.equal(later);
      expect(session.updatedAt).to.not.equal(later);
      expect(session.update({ title: null }, later).title).to.equal(null);
    });

    it('refuses an end before its start', () => {
      expect(() => aSession(aConversation(), { startedAt: at('2026-11-22T12:00:00Z'), endedAt: at('2026-11-22T11:00:00Z') })).to.throw(
        /^ended_at: must not be before started_at/,
      );
      const open = aSession(aConversation(), { startedAt: at('2026-11-22T12:00:00Z') });
      expect(() => open.update({ endedAt: at('2026-11-22T11:00:00Z') }, new Date())).to.throw(FieldInvalidError);
      expect(Session.restore(open.toProps()).toProps()).to.deep.equal(open.toProps());
    });
  });
});

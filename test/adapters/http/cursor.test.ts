import { expect } from 'chai';
import { FieldInvalidError } from '../../../src/domain/errors.js';
import { branchCursor, conversationCursor, decodeCursor, encodeCursor, messageCursor, searchCursor } from '../../../src/adapters/http/cursor.js';

describe('page cursors', () => {
  it('round-trip their key for the scope they were made for', () => {
    const cursor = encodeCursor('messages:asc:c1', [1795320353563, 42]);
    expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, 'messages:asc:c1', 'number')).to.deep.equal([1795320353563, 42]);
  });

  it('refuse another scope, another key type, and garbage', () => {
    const cursor = encodeCursor('messages:asc:c1', [1, 2]);
    expect(() => decodeCursor(cursor, 'messages:desc:c1', 'number')).to.throw(FieldInvalidError, /^cursor: was made for another/);
    expect(() => decodeCursor(cursor, 'messages:asc:c1', 'string')).to.throw(/^cursor: is not a cursor/);
    for (const garbage of ['', '!!!', Buffer.from('{"v":1}').toString('base64url'), Buffer.from('[1,2]').toString('base64url')]) {
      expect(() => decodeCursor(garbage, 'messages:asc:c1', 'number')).to.throw(/^cursor: is not a cursor/);
    }
  });

  it('refuse a key whose instant no store keeps (before the year 1 or after 9999): no cursor made here holds one', () => {
    for (const time of [-8.64e15, -62_135_596_800_001, 253_402_300_800_000]) {
      expect(() => messageCursor.decode(encodeCursor('messages:asc:c1', [time, 1]), 'c1', 'asc')).to.throw(/^cursor: is not a cursor/);
      expect(() => conversationCursor.decode(encodeCursor('conversations:listed:u1', [time, 'u\u0000c1']), 'u1', false)).to.throw(/^cursor: is not a cursor/);
      expect(() => searchCursor.decode(encodeCursor('search:x', ['words', 1, time, 'm1']), 'search:x')).to.throw(/^cursor: is not a cursor/);
    }
    const edge = messageCursor.decode(encodeCursor('messages:asc:c1', [-62_135_596_800_000, 1]), 'c1', 'asc');
    expect(edge.createdAt.toISOString()).to.equal('0001-01-01T00:00:00.000Z');
  });

  it("a branch's cursor carries the parent the page's last message had (none: the branch's first), and reads an earlier version's without it", () => {
    for (const afterParentId of ['p1', null]) {
      const cursor = branchCursor.encode('c1', 'asc', { leafId: 'leaf', afterId: 'm2', afterParentId });
      expect(branchCursor.decode(cursor, 'c1', 'asc')).to.deep.equal({ leafId: 'leaf', afterId: 'm2', afterParentId });
    }
    const earlier = encodeCursor('branch:asc:c1', [0, 'leaf\u0000m2']);
    expect(branchCursor.decode(earlier, 'c1', 'asc')).to.deep.equal({ leafId: 'leaf', afterId: 'm2' });
    const tooMany = encodeCursor('branch:asc:c1', [0, 'leaf\u0000m2\u0000p\u0000x']);
    expect(() => branchCursor.decode(tooMany, 'c1', 'asc')).to.throw(FieldInvalidError);
  });

  it('refuse what no store keeps: a lone surrogate in any part, a NUL in an id (NUL separates the ids within a part)', () => {
    expect(() => branchCursor.decode(encodeCursor('branch:asc:c1', [0, 'leaf\u0000m\ud800']), 'c1', 'asc')).to.throw(/^cursor: is not a cursor/);
    expect(() => searchCursor.decode(encodeCursor('search:x', ['words', 1, 0, 'm\u0000']), 'search:x')).to.throw(/^cursor: is not a cursor/);
    expect(() => searchCursor.decode(encodeCursor('search:x', ['words', 1, 0, '\udc00']), 'search:x')).to.throw(/^cursor: is not a cursor/);
    expect(searchCursor.decode(encodeCursor('search:x', ['words', 1, 0, 'm-1']), 'search:x').messageId).to.equal('m-1');
  });
});

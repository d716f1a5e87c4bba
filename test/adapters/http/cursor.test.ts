import { expect } from 'chai';
import { FieldInvalidError } from '../../../src/domain/errors.js';
import { decodeCursor, encodeCursor } from '../../../src/adapters/http/cursor.js';

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
});

import { expect } from 'chai';
import { numberPlaceholders } from '../../../src/adapters/persistence/mikro-orm/statements.js';

describe('numberPlaceholders: the repositories\' `?` as PostgreSQL\'s $1, $2…', () => {
  it('numbers each placeholder in order', () => {
    expect(numberPlaceholders('select * from t where a = ? and b in (?, ?) limit ?')).to.equal('select * from t where a = $1 and b in ($2, $3) limit $4');
  });

  it('leaves a ? inside a literal, a quoted identifier or a comment alone', () => {
    expect(numberPlaceholders(`/* why? */ select '?', 'it''s ?', "odd?" from t where a = ?::json`)).to.equal(
      `/* why? */ select '?', 'it''s ?', "odd?" from t where a = $1::json`,
    );
  });

  it('a statement without placeholders is unchanged', () => {
    expect(numberPlaceholders("select pg_notify('assistant_replies', message_id) from m")).to.equal("select pg_notify('assistant_replies', message_id) from m");
  });
});

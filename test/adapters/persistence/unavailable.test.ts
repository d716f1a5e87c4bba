import { expect } from 'chai';
import { isDatabaseUnavailable, isRetryable } from '../../../src/adapters/persistence/postgres/unavailable.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable: the database gone, or a statement at fault', () => {
  it('a transaction whose connection died is the database going away, not a fault (503, not 500)', () => {
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).to.equal(true);
    // pg-pool's words when no connection of a full pool came free in time
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).to.equal(true);
    expect(isDatabaseUnavailable(withCode('ECONNREFUSED'))).to.equal(true);
    // pg's own words when a connection cannot be made within connectionTimeoutMillis
    expect(isDatabaseUnavailable(new Error('timeout expired'))).to.equal(true);
  });

  it('the server giving up or going away, by SQLSTATE class', () => {
    for (const code of ['08006', '57P01', '57014', '53300', '3D000']) expect(isDatabaseUnavailable(withCode(code)), code).to.equal(true);
  });

  it('a statement the server refused is a fault of ours (500), and so is a bug in our code', () => {
    expect(isDatabaseUnavailable(withCode('23505'))).to.equal(false);
    expect(isDatabaseUnavailable(withCode('42P01'))).to.equal(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { cause: withCode('23505') }))).to.equal(false);
    expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined (reading 'x')"))).to.equal(false);
  });

  it("the driver's own error without the server's SQLSTATE is the connection failing", () => {
    expect(isDatabaseUnavailable(new Error('Client has encountered a connection error and is not queryable'))).to.equal(true);
  });

  it('a lost race (deadlock, serialization failure) may be run again; nothing else', () => {
    expect(isRetryable(withCode('40P01'))).to.equal(true);
    expect(isRetryable(withCode('40001'))).to.equal(true);
    expect(isRetryable(withCode('23505'))).to.equal(false);
    expect(isRetryable(new Error('Connection terminated unexpectedly'))).to.equal(false);
  });
});

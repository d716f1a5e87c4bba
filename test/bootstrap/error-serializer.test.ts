import { expect } from 'chai';
import { serializeError, statementKind } from '../../src/bootstrap/error-serializer.js';
import { capturedLogger } from '../support/log-capture.js';

const SECRET = 'SECRET-users-words';

/** Shaped as MikroORM's DriverException over a pg error: knex's message, pg's fields copied on. */
function driverError(): Error {
  const error = new Error(`insert into "messages" ("text", "metadata") values ('${SECRET}', '{"k":"${SECRET}"}') - duplicate key value violates unique constraint "messages_pkey"`);
  error.name = 'UniqueConstraintViolationException';
  Object.assign(error, {
    code: '23505',
    detail: `Key (message_id)=(${SECRET}) already exists.`,
    where: `SQL statement "insert ... ${SECRET}"`,
    table: 'messages',
    constraint: 'messages_pkey',
    routine: '_bt_check_unique',
    parameters: [SECRET],
  });
  return error;
}

describe('error serializer', () => {
  it('logs a database error as class, SQLSTATE, statement kind and schema names only', () => {
    const serialized = serializeError(driverError());
    expect(serialized).to.deep.equal({
      type: 'UniqueConstraintViolationException',
      code: '23505',
      statement: 'insert into messages',
      table: 'messages',
      constraint: 'messages_pkey',
      routine: '_bt_check_unique',
      stack: serialized.stack,
    });
    expect(serialized.stack).to.match(/^UniqueConstraintViolationException\n\s+at /);
    expect(JSON.stringify(serialized)).not.to.include(SECRET);
  });

  it('a pool timeout carrying the statement and its bindings (knex) keeps them out too', () => {
    const error = Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), {
      name: 'KnexTimeoutError',
      sql: `update "conversations" set "title" = ? where "id" = ?`,
      bindings: [SECRET, 'c1'],
    });
    const serialized = serializeError(error);
    expect(serialized).to.include({ type: 'KnexTimeoutError', statement: 'update conversations' });
    expect(JSON.stringify(serialized)).not.to.include(SECRET);
  });

  it('a database error found as the cause of another is reduced the same way', () => {
    const wrapper = new Error('saving failed', { cause: driverError() });
    const serialized = serializeError(wrapper);
    expect(serialized).to.include({ type: 'Error', message: 'saving failed' });
    expect(serialized.cause).to.include({ type: 'UniqueConstraintViolationException', code: '23505' });
    expect(JSON.stringify(serialized)).not.to.include(SECRET);
  });

  it('any other error keeps its class, message, code and stack, and nothing else it carries', () => {
    const error = Object.assign(new TypeError('x is not a function'), { code: 'E_TEST', body: SECRET, config: { apiKey: SECRET } });
    const serialized = serializeError(error);
    expect(serialized).to.deep.equal({ type: 'TypeError', message: 'x is not a function', code: 'E_TEST', stack: error.stack });
  });

  it('names the statement kind and table, never values', () => {
    expect(statementKind(`select "m0".* from "messages" as "m0" where "m0"."text" = '${SECRET}'`)).to.equal('select from messages');
    expect(statementKind(`delete from "sessions" where "id" in ('${SECRET}')`)).to.equal('delete from sessions');
    expect(statementKind(`/* messages.append */ with input as (select '${SECRET}') insert into messages select * from input`)).to.equal('messages.append');
    expect(statementKind(`select '${SECRET} from x'`)).to.equal('select');
    expect(statementKind('begin')).to.equal('begin');
    expect(statementKind(`connect ECONNREFUSED 127.0.0.1:5432`)).to.equal(undefined);
  });

  it('is what the service’s logger uses, under `err` and `error`', () => {
    const { logger, lines } = capturedLogger();
    logger.error({ err: driverError() }, 'unexpected fault');
    logger.warn({ error: driverError() }, 'also');
    logger.error(driverError());
    expect(lines).to.have.length(3);
    for (const line of lines) {
      expect(line).not.to.include(SECRET);
      expect(line).to.include('"code":"23505"');
    }
    logger.error(new Error('plain words'));
    expect(JSON.parse(lines[3]!)).to.include({ msg: 'plain words' });
  });
});

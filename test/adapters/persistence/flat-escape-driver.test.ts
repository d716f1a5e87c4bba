import { expect } from 'chai';
import pg from 'pg';
import { escapeLiteral } from '../../../src/adapters/persistence/mikro-orm/flat-escape-driver.js';

describe("escapeLiteral (MikroORM's quoting of parameters, in one pass)", () => {
  it("gives exactly pg's escapeLiteral for quotes, backslashes, both, neither, and any text", () => {
    const samples = ['', 'plain', "it's", "''", '\\', 'a\\b', "it's a \\ path\\", "E'\\x00'", 'Grüße 👋 — "quoted"\nnew line', "\\'; drop table messages; --"];
    const alphabet = ["'", '\\', 'a', ' ', '👋', '"', '\n', 'E', '$'];
    for (let i = 0; i < 500; i++) {
      samples.push(Array.from({ length: i % 40 }, (_, j) => alphabet[(i * 7 + j * 13) % alphabet.length]).join(''));
    }
    for (const text of samples) expect(escapeLiteral(text), JSON.stringify(text)).to.equal(pg.Client.prototype.escapeLiteral(text));
  });
});

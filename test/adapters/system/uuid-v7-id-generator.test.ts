import { expect } from 'chai';
import { validate, version } from 'uuid';
import { UuidV7IdGenerator } from '../../../src/adapters/system/uuid-v7-id-generator.js';

describe('UuidV7IdGenerator', () => {
  it('makes valid version 7 UUIDs, all different and in increasing order, across many pool refills', () => {
    const ids = new UuidV7IdGenerator();
    const made = Array.from({ length: 5000 }, () => ids.newId());
    for (const id of made.slice(0, 50)) {
      expect(validate(id), id).to.equal(true);
      expect(version(id)).to.equal(7);
    }
    expect(new Set(made).size).to.equal(made.length);
    expect([...made].sort()).to.deep.equal(made);
  });

  it('starts each id with the time it was made', () => {
    const before = Date.now();
    const id = new UuidV7IdGenerator().newId();
    const msecs = parseInt(id.replaceAll('-', '').slice(0, 12), 16);
    expect(msecs).to.be.within(before, Date.now() + 1);
  });
});

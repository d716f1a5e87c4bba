import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeyFile } from '../../../src/adapters/identity/api-key-file.js';

const digest = (algorithm: string, key: string) => `${algorithm}:${createHash(algorithm).update(key).digest('hex')}`;

describe('ApiKeyFile', () => {
  const keys = { alice: randomBytes(32).toString('base64url'), any: randomBytes(32).toString('base64url'), big: randomBytes(48).toString('hex') };
  let file: ApiKeyFile;
  before(async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'api-keys-')), 'keys.json');
    writeFileSync(
      path,
      JSON.stringify({
        keys: [
          { name: 'alice-laptop', hash: digest('sha256', keys.alice), user_id: 'alice' },
          { hash: digest('sha512', keys.any), any_user: true },
          { hash: digest('sha384', keys.big).toUpperCase().replace('SHA384', 'sha384'), user_id: 'bob' },
        ],
      }),
    );
    file = await ApiKeyFile.load(path);
  });

  it('knows each key by its hash, of any SHA-2 size', () => {
    expect(file.size).to.equal(3);
    expect(file.match(keys.alice)).to.deep.equal({ userId: 'alice', method: 'api-key' });
    expect(file.match(keys.any)).to.deep.equal({ userId: null, method: 'api-key' });
    expect(file.match(keys.big)).to.deep.equal({ userId: 'bob', method: 'api-key' });
  });

  it('knows nothing else: not the hash itself, not a near miss, not an empty key', () => {
    expect(file.match(digest('sha256', keys.alice))).to.equal(null);
    expect(file.match(`${keys.alice} `)).to.equal(null);
    expect(file.match(keys.alice.slice(1))).to.equal(null);
    expect(file.match('')).to.equal(null);
  });
});

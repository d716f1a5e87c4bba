import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { JsonFileUserLimits, LimitsFileInvalidError } from '../../../src/adapters/limits/json-file-user-limits.js';

describe('JsonFileUserLimits (LIMITS_FILE)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'limits-'));
    file = join(dir, 'limits.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const defaults = { requestsPerMinute: 10, tokensPerDay: 1000 };

  it('a user named in the file: a number replaces the default, null lifts it, a missing field keeps it', () => {
    writeFileSync(file, JSON.stringify({ users: { a: { requests_per_minute: 3 }, b: { tokens_per_day: null, requests_per_minute: 0 } } }));
    const limits = new JsonFileUserLimits(defaults, file);
    expect(limits.enabled).to.equal(true);
    expect(limits.limitsFor('a')).to.deep.equal({ requestsPerMinute: 3, tokensPerDay: 1000 });
    expect(limits.limitsFor('b')).to.deep.equal({ requestsPerMinute: 0, tokensPerDay: null });
    expect(limits.limitsFor('c')).to.deep.equal(defaults);
  });

  it('off with neither defaults nor a file; on with a file alone', () => {
    expect(new JsonFileUserLimits({ requestsPerMinute: null, tokensPerDay: null }, undefined).enabled).to.equal(false);
    writeFileSync(file, '{"users": {}}');
    expect(new JsonFileUserLimits({ requestsPerMinute: null, tokensPerDay: null }, file).enabled).to.equal(true);
  });

  it('refuses a broken file at start, naming the problem', () => {
    for (const [text, problem] of [
      ['{"users": {"a": {"requests_per_minut": 3}}}', /users\.a /],
      ['{"users": {"a": {"requests_per_minute": -1}}}', /users\.a\.requests_per_minute /],
      ['{"users": {"": {}}}', /users names "", which is no user id/],
      ['{"users": ', /not valid JSON/],
      ['[]', /the file /],
    ] as const) {
      writeFileSync(file, text);
      expect(() => new JsonFileUserLimits(defaults, file), text).to.throw(LimitsFileInvalidError, problem);
    }
    expect(() => new JsonFileUserLimits(defaults, join(dir, 'missing.json'))).to.throw(LimitsFileInvalidError, /cannot be read \(ENOENT\)/);
  });

  it('reload: null when the text did not change (a folder busy with other files), the new overrides when it did; a broken version refused once', () => {
    writeFileSync(file, JSON.stringify({ users: { a: { requests_per_minute: 3 } } }));
    const limits = new JsonFileUserLimits(defaults, file);
    expect(limits.reload()).to.equal(null);
    writeFileSync(file, JSON.stringify({ users: { a: { requests_per_minute: 4 }, b: {} } }));
    expect(limits.reload()).to.equal(2);
    expect(limits.limitsFor('a').requestsPerMinute).to.equal(4);
    writeFileSync(file, '{"users": {"a": {"requests_per_minute": "many"}}}');
    expect(() => limits.reload()).to.throw(LimitsFileInvalidError);
    expect(limits.reload(), 'the same broken text is not refused again').to.equal(null);
    expect(limits.limitsFor('a').requestsPerMinute, 'the last good version stays').to.equal(4);
    rmSync(file);
    expect(() => limits.reload()).to.throw(LimitsFileInvalidError, /ENOENT/);
    expect(limits.reload()).to.equal(null);
    writeFileSync(file, JSON.stringify({ users: {} }));
    expect(limits.reload()).to.equal(0);
    expect(limits.limitsFor('a')).to.deep.equal(defaults);
  });
});

import { expect } from 'chai';
import { ConfigInvalidError, loadConfig } from '../../src/bootstrap/config.js';

describe('configuration: usage and limits', () => {
  it('off by default: no limit, no file, counts sent every second', () => {
    expect(loadConfig({}).limits).to.deep.equal({ requestsPerMinute: null, tokensPerDay: null, file: undefined, syncIntervalMs: 1000 });
  });

  it('reads the limits, the file and the sync interval', () => {
    const config = loadConfig({ LIMIT_REQUESTS_PER_MINUTE: '60', LIMIT_TOKENS_PER_DAY: '100000', LIMITS_FILE: '/etc/limits.json', USAGE_SYNC_MS: '250' });
    expect(config.limits).to.deep.equal({ requestsPerMinute: 60, tokensPerDay: 100_000, file: '/etc/limits.json', syncIntervalMs: 250 });
  });

  for (const [name, value] of [
    ['LIMIT_REQUESTS_PER_MINUTE', '0'],
    ['LIMIT_REQUESTS_PER_MINUTE', 'many'],
    ['LIMIT_TOKENS_PER_DAY', '1.5'],
    ['USAGE_SYNC_MS', '10'],
  ]) {
    it(`refuses ${name}=${value} with one line naming the setting`, () => {
      // A count of tokens is no credential: its value is echoed (config.ts hides METRICS_TOKEN and the like).
      const shown = `"${value}"`;
      expect(() => loadConfig({ [name!]: value })).to.throw(ConfigInvalidError, new RegExp(`^invalid configuration: ${name} .*\\(got ${shown}\\)$`));
    });
  }
});

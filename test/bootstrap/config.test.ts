import { expect } from 'chai';
import { ConfigInvalidError, loadConfig } from '../../src/bootstrap/config.js';

describe('configuration', () => {
  it('defaults: port 8080, 1 MiB bodies, 32,000-character texts', () => {
    const config = loadConfig({});
    expect(config).to.include({ port: 8080, host: '0.0.0.0', bodyLimitBytes: 1024 * 1024, logLevel: 'info' });
    expect(config.chat.maxTextLength).to.equal(32_000);
    expect(config.personaFile).to.equal(undefined);
    expect(config.memoryStore).to.deep.equal({ maxMessages: 100_000 });
    expect(config.search).to.deep.equal({ language: 'english' });
  });

  it('reads SEARCH_LANGUAGE as a text-search configuration name', () => {
    expect(loadConfig({ SEARCH_LANGUAGE: ' German ' }).search).to.deep.equal({ language: 'german' });
    expect(loadConfig({ SEARCH_LANGUAGE: 'public.my_config' }).search).to.deep.equal({ language: 'public.my_config' });
  });

  it('keeps the tables\' statistics unless DATABASE_ANALYZE=off', () => {
    const url = 'postgres://db.example/assistant';
    expect(loadConfig({ DATABASE_URL: url }).database).to.include({ keepStatistics: true, create: false });
    expect(loadConfig({ DATABASE_URL: url, DATABASE_ANALYZE: 'off' }).database).to.include({ keepStatistics: false });
  });

  it('reads numbers and strings from the environment', () => {
    const config = loadConfig({ PORT: '9000', HOST: '127.0.0.1', HISTORY_MESSAGES: '4', PERSONA_FILE: '/tmp/p.json' });
    expect(config).to.include({ port: 9000, host: '127.0.0.1', personaFile: '/tmp/p.json' });
    expect(config.chat.historyMessages).to.equal(4);
  });

  for (const [name, value] of [
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '80.5'],
    ['LOG_LEVEL', 'loud'],
    ['BODY_LIMIT_BYTES', '-1'],
    ['MEMORY_STORE_MAX_MESSAGES', '0'],
    ['DATABASE_ANALYZE', 'sometimes'],
    ['SEARCH_LANGUAGE', "english'; drop table messages"],
    ['CORS_ORIGINS', 'https://app.example.com/path'],
    ['CORS_ORIGINS', 'https://app.example.com/#top'],
    ['CORS_ORIGINS', 'ftp://app.example.com'],
  ]) {
    it(`refuses ${name}=${value} with one line naming the setting`, () => {
      expect(() => loadConfig({ [name!]: value })).to.throw(ConfigInvalidError, new RegExp(`^invalid configuration: ${name} .*\\(got "${value}"\\)$`));
    });
  }

  it('reads CORS_ORIGINS as origins, as browsers send them (a trailing slash dropped)', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example.com/, http://localhost:5173,*' }).corsOrigins).to.deep.equal(['https://a.example.com', 'http://localhost:5173', '*']);
  });

  it('never echoes values of settings that may hold secrets', () => {
    expect(() => loadConfig({ PORT: '1', HISTORY_CHARS: 'x' })).to.throw(/HISTORY_CHARS/);
  });
});

import { expect } from 'chai';
import { describeChatModel } from '../../src/bootstrap/chat-model.js';
import { ConfigInvalidError, loadConfig } from '../../src/bootstrap/config.js';

describe('configuration: the language model and streaming', () => {
  it('defaults to the offline assistant, and a ping every 15 s', () => {
    const config = loadConfig({});
    expect(config.llm).to.deep.equal({ provider: 'offline' });
    expect(config.ssePingIntervalMs).to.equal(15_000);
    expect(describeChatModel(config)).to.deep.equal({ provider: 'offline' });
  });

  it('reads the OpenAI-compatible settings', () => {
    const config = loadConfig({
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: 'http://localhost:11434/v1/',
      LLM_MODEL: 'llama3.2',
      LLM_API_KEY: 'sk-secret',
      LLM_TIMEOUT_MS: '30000',
      LLM_MAX_TOKENS: '512',
      LLM_MAX_RETRIES: '1',
    });
    expect(config.llm).to.deep.equal({
      provider: 'openai',
      baseUrl: 'http://localhost:11434/v1',
      apiKey: 'sk-secret',
      model: 'llama3.2',
      timeoutMs: 30_000,
      maxTokens: 512,
      maxRetries: 1,
    });
    expect(describeChatModel(config)).to.deep.equal({ provider: 'openai', model: 'llama3.2', server: 'http://localhost:11434' });
  });

  it('defaults for OpenAI: its own API, 60 s, no token limit, 2 retries', () => {
    const config = loadConfig({ LLM_PROVIDER: 'openai', LLM_MODEL: 'gpt-4o-mini' });
    expect(config.llm).to.deep.equal({ provider: 'openai', baseUrl: undefined, apiKey: undefined, model: 'gpt-4o-mini', timeoutMs: 60_000, maxTokens: undefined, maxRetries: 2 });
    expect(describeChatModel(config)).to.deep.include({ server: 'https://api.openai.com' });
  });

  const refuses = (environment: Record<string, string>, line: string) => () =>
    expect(() => loadConfig(environment)).to.throw(ConfigInvalidError, line).with.property('message', line);

  it('needs LLM_MODEL for openai', refuses({ LLM_PROVIDER: 'openai' }, 'invalid configuration: LLM_MODEL is required when LLM_PROVIDER=openai (e.g. gpt-4o-mini, llama3.2)'));
  it('refuses an unknown provider', refuses({ LLM_PROVIDER: 'gpt' }, 'invalid configuration: LLM_PROVIDER must be "offline" or "openai" (got "gpt")'));
  it('refuses a base URL that is not http(s), without echoing it', refuses({ LLM_PROVIDER: 'openai', LLM_MODEL: 'm', LLM_BASE_URL: 'ftp://secret-host/v1' }, 'invalid configuration: LLM_BASE_URL must be an http:// or https:// URL (got a hidden value)'));
  it('refuses a base URL that is no URL at all with the same one line (not a stack trace)', () => {
    for (const url of ['notaurl', 'http://']) refuses({ LLM_PROVIDER: 'openai', LLM_MODEL: 'm', LLM_BASE_URL: url }, 'invalid configuration: LLM_BASE_URL must be an http:// or https:// URL (got a hidden value)')();
  });
  it('refuses credentials in the base URL, without echoing them', refuses({ LLM_PROVIDER: 'openai', LLM_MODEL: 'm', LLM_BASE_URL: 'https://me:pw@host/v1' }, 'invalid configuration: LLM_BASE_URL must not contain credentials (put the key in LLM_API_KEY) (got a hidden value)'));
  it('refuses a non-integer time-out', refuses({ LLM_TIMEOUT_MS: 'soon' }, 'invalid configuration: LLM_TIMEOUT_MS must be an integer from 100 to 3600000 (got "soon")'));
  it('refuses a zero token limit', refuses({ LLM_MAX_TOKENS: '0' }, 'invalid configuration: LLM_MAX_TOKENS must be an integer from 1 to 10000000 (got "0")'));
  it('refuses a ping interval above the 15 s the contract allows', refuses({ SSE_PING_INTERVAL_MS: '20000' }, 'invalid configuration: SSE_PING_INTERVAL_MS must be an integer from 10 to 15000 (got "20000")'));
});

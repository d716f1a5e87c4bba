import { OfflineChatModel } from '../../src/adapters/llm/offline/offline-chat-model.js';
import { OpenAiChatModel } from '../../src/adapters/llm/openai/openai-chat-model.js';
import { FAKE_MODEL, startFakeOpenAiServer } from '../support/fake-openai-server.js';
import { chatModelContract } from './chat-model.contract.js';

describe('offline chat model', () => {
  chatModelContract(async () => ({ model: new OfflineChatModel({ streamDelayMs: 10 }), immediate: true, close: async () => {} }));
});

describe('OpenAI chat model, against a local OpenAI-compatible server', () => {
  chatModelContract(async () => {
    const fake = await startFakeOpenAiServer();
    fake.chunkDelayMs = 10;
    return {
      model: new OpenAiChatModel({ model: FAKE_MODEL, baseUrl: fake.baseUrl, timeoutMs: 5000, maxRetries: 0 }),
      immediate: false,
      close: () => fake.stop(),
    };
  });
});

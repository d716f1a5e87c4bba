import { startTestService } from '../support/service.js';
import { openAiConversationsSuite } from './openai-conversations.suite.js';
import { openAiResponsesSuite } from './openai-responses.suite.js';

describe("OpenAI's Responses and Conversations APIs (in-memory store)", function () {
  this.timeout(20_000);
  const start = (environment: Record<string, string>, overrides: Parameters<typeof startTestService>[1]) => startTestService(environment, overrides);
  openAiResponsesSuite(start);
  openAiConversationsSuite(start);
});

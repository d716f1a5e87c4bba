import type { ChatModel } from '../application/ports/chat-model.js';
import { OfflineChatModel } from '../adapters/llm/offline/offline-chat-model.js';
import { OPENAI_BASE_URL } from '../adapters/llm/openai/openai-base-url.js';
import { OpenAiChatModel } from '../adapters/llm/openai/openai-chat-model.js';
import type { Config } from './config.js';

/** The language model chosen by LLM_PROVIDER. */
export function chatModelFor(config: Config): ChatModel {
  const { llm } = config;
  if (llm.provider === 'offline') return new OfflineChatModel({ streamDelayMs: config.offlineStreamDelayMs });
  return new OpenAiChatModel({
    model: llm.model,
    baseUrl: llm.baseUrl,
    apiKey: llm.apiKey,
    timeoutMs: llm.timeoutMs,
    maxTokens: llm.maxTokens,
    maxRetries: llm.maxRetries,
  });
}

/** For the start-up log line: which model, where; never the key, nor a path or query that might hold one. */
export function describeChatModel(config: Config): Record<string, string> {
  const { llm } = config;
  if (llm.provider === 'offline') return { provider: 'offline' };
  const url = new URL(llm.baseUrl ?? OPENAI_BASE_URL);
  return { provider: 'openai', model: llm.model, server: `${url.protocol}//${url.host}` };
}

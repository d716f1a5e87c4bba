import { systemPromptFor } from '../../domain/persona.js';
import type { TokenUsage } from '../../domain/reply.js';
import { estimateTokens } from '../../domain/usage.js';
import type { ChatModel, ChatRequest } from '../ports/chat-model.js';

/**
 * A reply's tokens when the model gave no count (it was stopped, or failed, before reporting
 * one): the model's own estimate if it has one (the offline assistant counts words, as for its
 * finished replies), else about four characters a token of what it was sent and what it wrote.
 */
export function estimatedUsage(model: ChatModel, request: ChatRequest, text: string): TokenUsage {
  const own = model.estimateUsage?.(request, text);
  if (own) return own;
  const promptTokens =
    estimateTokens(request.systemPrompt ?? systemPromptFor(request.persona, request.instructions)) +
    request.history.reduce((sum, turn) => sum + estimateTokens(turn.text), 0) +
    estimateTokens(request.text);
  const completionTokens = estimateTokens(text);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

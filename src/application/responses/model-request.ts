import type { ChatModel, ChatRequest } from '../ports/chat-model.js';
import { estimatedUsage } from '../usage/estimated-usage.js';
import type { CreateResponseInput } from './create-response.js';

/** How the model is asked beyond the conversation: the request's own settings. */
export const requestSettings = (input: Pick<CreateResponseInput, 'instructions' | 'maxOutputTokens' | 'temperature'>): Partial<ChatRequest> => ({
  ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
  ...(input.maxOutputTokens !== undefined ? { maxOutputTokens: input.maxOutputTokens } : {}),
  ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
});

/**
 * The model's input, estimated in tokens (a response's usage where the model counts none): as its
 * reply's tokens are estimated (estimated-usage.ts), so that a stopped or failed response reads the
 * model's own estimate (the offline assistant's word count) as its finished responses do.
 */
export const inputTokensOf = (model: ChatModel, request: ChatRequest): number => estimatedUsage(model, request, '').promptTokens;


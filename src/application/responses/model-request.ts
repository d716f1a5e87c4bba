import { systemPromptFor } from '../../domain/persona.js';
import { estimateTokens } from '../../domain/tokens.js';
import type { ChatRequest } from '../ports/chat-model.js';
import type { CreateResponseInput } from './create-response.js';

/** How the model is asked beyond the conversation: the request's own settings. */
export const requestSettings = (input: Pick<CreateResponseInput, 'instructions' | 'maxOutputTokens' | 'temperature'>): Partial<ChatRequest> => ({
  ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
  ...(input.maxOutputTokens !== undefined ? { maxOutputTokens: input.maxOutputTokens } : {}),
  ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
});

/** The model's input, estimated in tokens: the system prompt, the history and the question. */
export const inputTokensOf = (request: ChatRequest): number =>
  estimateTokens([systemPromptFor(request.persona, request.instructions), ...request.history.map((turn) => turn.text), request.text].join('\n'));


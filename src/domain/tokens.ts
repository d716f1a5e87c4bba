import { codePointLength } from './text.js';

/**
 * Tokens of a text, estimated where a model counts none: about four characters a token, the
 * usual rule of thumb for English with OpenAI's tokenizers. Never 0 for a non-empty text.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(codePointLength(text) / 4);
}

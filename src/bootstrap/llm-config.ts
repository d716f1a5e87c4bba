import { z } from 'zod';
import { integer, optionalText, hasNoCredentials } from './environment-fields.js';

/** The language-model settings, spread into the environment schema of config.ts. */
export const LLM_ENVIRONMENT = {
  LLM_PROVIDER: z.enum(['offline', 'openai'], { error: 'must be "offline" or "openai"' }).default('offline'),
  LLM_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .refine(hasNoCredentials, 'must not contain credentials (put the key in LLM_API_KEY)')
    .transform((url) => url.replace(/\/+$/u, ''))
    .optional(),
  LLM_API_KEY: optionalText,
  LLM_MODEL: optionalText,
  LLM_TIMEOUT_MS: integer(100, 3_600_000).default(60_000),
  LLM_MAX_TOKENS: integer(1, 10_000_000).optional(),
  LLM_MAX_RETRIES: integer(0, 10).default(2),
};

type LlmEnvironment = z.output<z.ZodObject<typeof LLM_ENVIRONMENT>>;

export type LlmConfig =
  | { provider: 'offline' }
  | {
      provider: 'openai';
      /** Undefined means OpenAI's own API. */
      baseUrl: string | undefined;
      apiKey: string | undefined;
      model: string;
      timeoutMs: number;
      maxTokens: number | undefined;
      maxRetries: number;
    };

/** The chosen model's settings, or the one line that says what is missing. */
export function llmConfigFrom(env: LlmEnvironment): LlmConfig | string {
  if (env.LLM_PROVIDER === 'offline') return { provider: 'offline' };
  if (env.LLM_MODEL === undefined) return 'LLM_MODEL is required when LLM_PROVIDER=openai (e.g. gpt-4o-mini, llama3.2)';
  return {
    provider: 'openai',
    baseUrl: env.LLM_BASE_URL,
    apiKey: env.LLM_API_KEY,
    model: env.LLM_MODEL,
    timeoutMs: env.LLM_TIMEOUT_MS,
    maxTokens: env.LLM_MAX_TOKENS,
    maxRetries: env.LLM_MAX_RETRIES,
  };
}

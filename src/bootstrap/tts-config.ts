import { z } from 'zod';
import { integer, optionalText, hasNoCredentials } from './environment-fields.js';

const MIB = 1024 * 1024;

/** The text-to-speech settings, spread into the environment schema of config.ts. */
export const TTS_ENVIRONMENT = {
  TTS_PROVIDER: z.enum(['espeak', 'openai'], { error: 'must be "espeak" or "openai"' }).default('espeak'),
  TTS_ENGINE: z.enum(['auto', 'native', 'wasm'], { error: 'must be "auto", "native" or "wasm"' }).default('auto'),
  TTS_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .refine(hasNoCredentials, 'must not contain credentials (put the key in TTS_API_KEY)')
    .transform((url) => url.replace(/\/+$/u, ''))
    .optional(),
  TTS_API_KEY: optionalText,
  TTS_MODEL: optionalText,
  TTS_VOICE: optionalText,
  TTS_VOICES: optionalText,
  TTS_CACHE_BYTES: integer(0, 16 * 1024 * MIB).default(64 * MIB),
  TTS_MAX_CONCURRENT: integer(1, 64).default(2),
  TTS_MAX_QUEUE: integer(0, 10_000).default(16),
  TTS_TIMEOUT_MS: integer(100, 600_000).default(60_000),
  TTS_WARMUP_MS: integer(0, 600_000).default(5_000),
};

type TtsEnvironment = z.output<z.ZodObject<typeof TTS_ENVIRONMENT>>;

export interface TtsConfig {
  provider: 'espeak' | 'openai';
  /**
   * How eSpeak NG and LAME run: `native`, the programs installed on the machine (espeak-ng is
   * then required, lame used when present); `wasm`, their WebAssembly builds in worker threads;
   * `auto`, each native when installed.
   */
  engine: 'auto' | 'native' | 'wasm';
  /** The voice when a request names none and the persona has none valid (engine default when undefined). */
  voice: string | undefined;
  cacheBytes: number;
  maxConcurrent: number;
  maxQueue: number;
  timeoutMs: number;
  /**
   * Longest wait at start-up for the speech engine to warm up (voices listed; the WebAssembly
   * build's workers started, their engines loaded); past it the service listens anyway and the
   * engine finishes in the background. 0: do not wait.
   */
  warmUpMs: number;
  /** The OpenAI-compatible speech API (TTS_PROVIDER=openai). */
  openai: {
    /** Undefined means OpenAI's own API. */
    baseUrl: string | undefined;
    apiKey: string | undefined;
    model: string;
    /** The server's voices when they are not OpenAI's. */
    voices: string[] | undefined;
  };
}

export function ttsConfigFrom(env: TtsEnvironment): TtsConfig {
  const voices = env.TTS_VOICES?.split(',').map((v) => v.trim()).filter(Boolean);
  return {
    provider: env.TTS_PROVIDER,
    engine: env.TTS_ENGINE,
    voice: env.TTS_VOICE,
    cacheBytes: env.TTS_CACHE_BYTES,
    maxConcurrent: env.TTS_MAX_CONCURRENT,
    maxQueue: env.TTS_MAX_QUEUE,
    timeoutMs: env.TTS_TIMEOUT_MS,
    warmUpMs: env.TTS_WARMUP_MS,
    openai: {
      baseUrl: env.TTS_BASE_URL,
      apiKey: env.TTS_API_KEY,
      // tts-1 honours `speed`; gpt-4o-mini-tts ignores it.
      model: env.TTS_MODEL ?? 'tts-1',
      voices: voices?.length ? voices : undefined,
    },
  };
}

import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { AudioChunk, AudioFormat, SpeechRequest, SpeechSynthesizer, Voice } from '../../../application/ports/speech-synthesizer.js';
import { SpeechEngineFailedError, SpeechEngineTimedOutError } from '../../../domain/errors.js';
import { safeErrorCode, statusLine } from '../../openai-api-error.js';
import { checkedAudio } from './checked-audio.js';

export const OPENAI_SPEECH_BASE_URL = 'https://api.openai.com/v1';

/** OpenAI's built-in voices; each speaks many languages. */
export const OPENAI_VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse', 'marin', 'cedar'];

export interface OpenAiSpeechOptions {
  model: string;
  /** Any server speaking OpenAI's `/audio/speech`: OpenAI, or a local one. */
  baseUrl?: string;
  /** Local servers need none; a placeholder is sent then, as the SDK insists on one. */
  apiKey?: string;
  /** The voice when none is asked for; `alloy` (or the first of `voices`) when not given. */
  voice?: string;
  /** The server's voices, when they are not OpenAI's. */
  voices?: string[];
  /** The SDK's own deadline for one call. */
  timeoutMs?: number;
  maxRetries?: number;
}

/**
 * Speech from the OpenAI-compatible `POST {base}/audio/speech`, through the official SDK.
 * The server encodes the audio itself (response_format wav, mp3, pcm or opus, at the asked
 * speed) and its reply is passed on as it arrives, once its start shows it is audio of that
 * format; a WAV ends with a header with true sizes (see `checkedAudio`).
 */
export class OpenAiSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine: string;
  readonly formats: readonly AudioFormat[] = ['wav', 'mp3', 'pcm', 'opus'];
  private readonly client: OpenAI;
  private readonly host: string;
  private readonly catalog: Voice[];

  constructor(private readonly options: OpenAiSpeechOptions) {
    const baseURL = options.baseUrl ?? OPENAI_SPEECH_BASE_URL;
    const url = new URL(baseURL);
    this.host = url.host;
    this.engine = `openai-speech ${options.model} at ${url.host}${url.pathname}`;
    this.catalog = (options.voices?.length ? options.voices : OPENAI_VOICES).map((id) => ({
      id,
      name: id.charAt(0).toUpperCase() + id.slice(1),
      language: 'mul',
    }));
    this.client = new OpenAI({
      baseURL,
      apiKey: options.apiKey ?? 'not-needed',
      timeout: options.timeoutMs ?? 60_000,
      maxRetries: options.maxRetries ?? 1,
      logLevel: 'off',
    });
  }

  async voices(): Promise<Voice[]> {
    return this.catalog;
  }

  async findVoice(id: string): Promise<Voice | null> {
    return this.catalog.find((voice) => voice.id === id) ?? null;
  }

  defaultVoice(): string {
    if (this.options.voice) return this.options.voice;
    return this.catalog.some((voice) => voice.id === 'alloy') ? 'alloy' : this.catalog[0]!.id;
  }

  async *synthesize(request: SpeechRequest, signal?: AbortSignal): AsyncGenerator<AudioChunk> {
    signal?.throwIfAborted();
    const refuse = (why: string) => new SpeechEngineFailedError(`the speech API at ${this.host} sent ${why}`);
    try {
      const response = await this.client.audio.speech.create(
        { model: this.options.model, input: request.text, voice: request.voice, response_format: request.format, speed: request.speed },
        { signal },
      );
      if (!response.body) throw refuse('no audio');
      yield* checkedAudio(request.format, response.body, refuse);
    } catch (error) {
      if (error instanceof SpeechEngineFailedError || error instanceof SpeechEngineTimedOutError) throw error;
      throw this.translate(error, signal);
    }
  }

  private translate(error: unknown, signal: AbortSignal | undefined): unknown {
    if (signal?.aborted) return signal.reason;
    if (error instanceof APIConnectionTimeoutError) {
      return new SpeechEngineTimedOutError(`the speech API at ${this.host} did not answer in time`);
    }
    if (error instanceof APIUserAbortError) return new SpeechEngineFailedError(`the call to the speech API at ${this.host} was cancelled`);
    if (error instanceof APIConnectionError) return new SpeechEngineFailedError(`could not reach the speech API at ${this.host}`);
    if (error instanceof APIError) {
      if (error.status === undefined) return new SpeechEngineFailedError(`the speech API at ${this.host} reported an error${safeErrorCode(error)}`);
      const answer = `the speech API at ${this.host} answered ${statusLine(error)}`;
      return error.status === 504 || error.status === 408 ? new SpeechEngineTimedOutError(answer) : new SpeechEngineFailedError(answer);
    }
    // undici's "terminated": the connection broke off in the middle of the audio.
    return new SpeechEngineFailedError(`the connection to the speech API at ${this.host} broke off`);
  }
}

import { createParser, type EventSourceMessage } from 'eventsource-parser';
import OpenAI, { APIError } from 'openai';
import type { ChatChunk, ChatModel, ChatReply, ChatRequest, TokenUsage } from '../../../application/ports/chat-model.js';
import { systemPromptFor } from '../../../domain/persona.js';
import { ChatModelFailedError } from '../../../domain/errors.js';
import { storableText } from '../../../domain/text.js';
import { UpstreamCall } from './upstream-call.js';

import { OPENAI_BASE_URL } from './openai-base-url.js';

export { OPENAI_BASE_URL } from './openai-base-url.js';

export interface OpenAiChatModelOptions {
  model: string;
  /** Any OpenAI-compatible server: OpenAI, Ollama (`http://localhost:11434/v1`), llama.cpp... */
  baseUrl?: string;
  /** Local servers need none; a placeholder is sent then, as the SDK insists on one. */
  apiKey?: string;
  /** How long to wait for the reply to start (and, streaming, for each next piece); covers retries. */
  timeoutMs?: number;
  maxTokens?: number;
  /** The SDK's own retries (connection errors, 408, 409, 429, 5xx), only before a reply starts. */
  maxRetries?: number;
}

type Messages = OpenAI.Chat.Completions.ChatCompletionMessageParam[];

/** Chat completions through the official `openai` SDK, from any OpenAI-compatible server. */
export class OpenAiChatModel implements ChatModel {
  readonly name: string;
  private readonly client: OpenAI;
  private readonly timeoutMs: number;
  private readonly host: string;
  private readonly baseURL: string;
  private readonly limit: { max_tokens: number } | { max_completion_tokens: number } | Record<string, never>;

  constructor(options: OpenAiChatModelOptions) {
    const baseURL = options.baseUrl ?? OPENAI_BASE_URL;
    this.name = options.model;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.host = new URL(baseURL).host;
    this.baseURL = baseURL;
    this.limit = limitOf(options.maxTokens, baseURL);
    this.client = new OpenAI({
      baseURL,
      apiKey: options.apiKey ?? 'not-needed',
      timeout: this.timeoutMs,
      maxRetries: options.maxRetries ?? 2,
      logLevel: 'off', // its console lines would break our JSON logs; failures reach us as errors
      // A model's API answers, it does not redirect. Without these, fetch (the Fetch standard, which
      // undici follows) clones every request before sending it, teeing its body into two streams.
      fetchOptions: { redirect: 'error', window: null },
    });
  }

  /** The configured limit, or the request's own (the lower), and the request's temperature. */
  private settingsFor(request: ChatRequest) {
    const { maxOutputTokens, temperature } = request;
    const configured = Object.values(this.limit)[0];
    const limit = maxOutputTokens === undefined || (configured !== undefined && configured <= maxOutputTokens) ? this.limit : limitOf(maxOutputTokens, this.baseURL);
    return { ...limit, ...(temperature === undefined ? {} : { temperature }) };
  }

  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatReply> {
    const call = new UpstreamCall(signal, this.timeoutMs, this.host);
    try {
      call.throwIfAborted();
      const completion = await this.client.chat.completions.create(
        { model: this.name, messages: messagesFor(request), ...this.settingsFor(request), stream: false },
        { signal: call.signal },
      );
      const choice = completion.choices?.[0];
      if (!choice) throw new ChatModelFailedError('the language model answered without a reply');
      return {
        text: storableText(choice.message?.content ?? ''),
        finishReason: choice.finish_reason ?? 'stop',
        model: completion.model || this.name,
        usage: usageOf(completion.usage),
      };
    } catch (error) {
      throw call.translate(error);
    } finally {
      call.dispose();
    }
  }

  async *stream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatChunk> {
    const call = new UpstreamCall(signal, this.timeoutMs, this.host);
    try {
      call.throwIfAborted();
      // The SDK makes, authenticates and retries the request and turns an error status into its error;
      // the answer's events are read here, with eventsource-parser, as they come off the socket
      // (the SDK's own reader costs a thousand concurrent streams a tenth of their CPU time more).
      const response = await this.client.chat.completions
        .create(
          { model: this.name, messages: messagesFor(request), ...this.settingsFor(request), stream: true, stream_options: { include_usage: true } },
          { signal: call.signal },
        )
        .asResponse();
      let finishReason: string | null = null;
      let model = this.name;
      let usage: TokenUsage | null = null;
      // A reply is stored as it comes: NUL and lone surrogates (no store keeps them) become U+FFFD.
      // A high surrogate ending a piece waits for the next, which may hold its other half.
      let held = '';
      // The answer's events are read in this generator itself, not in one of their own beneath it: at
      // thousands of streams, each layer of generators costs every piece a few promises more.
      const events: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (event) => events.push(event) });
      const decoder = new TextDecoder();
      let ended = false;
      // Read to the end of the body even after `[DONE]`, so the connection is left whole for the next request.
      for await (const bytes of (response.body ?? []) as AsyncIterable<Uint8Array>) {
        call.restart();
        if (ended) continue;
        parser.feed(decoder.decode(bytes, { stream: true }));
        for (const event of events.splice(0)) {
          if (ended || (ended = event.data.startsWith('[DONE]'))) continue;
          const chunk = completionChunk(event, response);
          if (chunk.model) model = chunk.model;
          usage = usageOf(chunk.usage) ?? usage;
          const choice = chunk.choices?.[0];
          if (choice?.finish_reason) finishReason = choice.finish_reason;
          const piece = held + (choice?.delta?.content ?? '');
          held = /[\uD800-\uDBFF]$/.test(piece) ? piece.slice(-1) : '';
          const text = storableText(piece.slice(0, piece.length - held.length));
          if (text) yield { type: 'delta', text };
        }
      }
      if (held) yield { type: 'delta', text: storableText(held) };
      call.throwIfStopped();
      if (finishReason === null) throw new ChatModelFailedError('the language model stopped without finishing its reply');
      yield { type: 'finish', finishReason, model, usage };
    } catch (error) {
      throw call.translate(error);
    } finally {
      call.dispose();
    }
  }
}

/** One event of a streamed chat completion, as OpenAI's SDK reads it: a chunk, or an error that ends the answer. */
function completionChunk(event: EventSourceMessage, response: Response): OpenAI.Chat.Completions.ChatCompletionChunk {
  const data = JSON.parse(event.data) as OpenAI.Chat.Completions.ChatCompletionChunk & { error?: object; message?: string };
  if (event.event === 'error') throw new APIError(undefined, data.error, data.message, undefined);
  if (data?.error) throw new APIError(undefined, data.error, undefined, response.headers);
  return data;
}

/** The persona as the system message, then the bounded history, then the new message. */
export function messagesFor(request: ChatRequest): Messages {
  return [
    { role: 'system', content: request.systemPrompt ?? systemPromptFor(request.persona, request.instructions) },
    ...request.history.map((turn) => ({ role: turn.role, content: turn.text })),
    { role: 'user', content: request.text },
  ];
}

/** OpenAI's newer models refuse max_tokens; most other servers know only max_tokens. */
function limitOf(maxTokens: number | undefined, baseURL: string): { max_tokens: number } | { max_completion_tokens: number } | Record<string, never> {
  if (maxTokens === undefined) return {};
  return baseURL === OPENAI_BASE_URL ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens };
}

function usageOf(usage: OpenAI.CompletionUsage | null | undefined): TokenUsage | null {
  if (!usage || typeof usage.total_tokens !== 'number') return null;
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, totalTokens: usage.total_tokens };
}

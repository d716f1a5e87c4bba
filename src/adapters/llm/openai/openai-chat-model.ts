import { createParser, type EventSourceMessage } from 'eventsource-parser';
import OpenAI, { APIError } from 'openai';
import type { ChatChunk, ChatModel, ChatReply, ChatRequest, TokenUsage } from '../../../application/ports/chat-model.js';
import { isJsonObject } from '../../../domain/metadata.js';
import { systemPromptFor } from '../../../domain/persona.js';
import { tokenUsage } from '../../../domain/reply.js';
import { ChatModelFailedError } from '../../../domain/errors.js';
import { storableText, truncateCodePoints } from '../../../domain/text.js';
import { bodyOf, modelFetch } from './model-fetch.js';
import { fetchWithinDeadline, UpstreamCall } from './upstream-call.js';

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
      // Over node:http rather than fetch (model-fetch.ts: a third of a thousand streams' CPU less).
      fetch: fetchWithinDeadline(this.timeoutMs, modelFetch()),
      // A model's API answers, it does not redirect.
      fetchOptions: { redirect: 'error' },
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
      const completion = await call.bounded(
        this.client.chat.completions.create(
          { model: this.name, messages: messagesFor(request), ...this.settingsFor(request), stream: false },
          { signal: call.signal },
        ),
      );
      if (!isJsonObject(completion)) throw notACompletion();
      const choice = completion.choices?.[0];
      if (!choice) throw new ChatModelFailedError('the language model answered without a reply');
      return {
        text: storableText(contentOf(choice.message?.content)),
        finishReason: finishReasonOf(choice.finish_reason) ?? 'stop',
        model: modelNameOf(completion.model) ?? this.name,
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
      const response = await call.bounded(
        this.client.chat.completions
          .create(
            { model: this.name, messages: messagesFor(request), ...this.settingsFor(request), stream: true, stream_options: { include_usage: true } },
            { signal: call.signal },
          )
          .asResponse(),
      );
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
      try {
        // The body is read to its end even after `[DONE]`, so that the connection is left whole for the
        // next request; a server that keeps it open past `[DONE]` is given a moment (call.ending).
        for await (const bytes of bodyOf(response)) {
          if (ended) continue;
          parser.feed(decoder.decode(bytes, { stream: true }));
          // Only events count as signs of life: comments alone (keep-alives) do not hold a silent model open.
          if (events.length > 0) call.restart();
          for (const event of events.splice(0)) {
            if (ended) continue;
            if ((ended = event.data.startsWith('[DONE]'))) {
              call.ending();
              continue;
            }
            const chunk = completionChunk(event, response);
            model = modelNameOf(chunk.model) ?? model;
            usage = usageOf(chunk.usage) ?? usage;
            const choice = chunk.choices?.[0];
            finishReason = finishReasonOf(choice?.finish_reason) ?? finishReason;
            const piece = held + contentOf(choice?.delta?.content);
            held = /[\uD800-\uDBFF]$/.test(piece) ? piece.slice(-1) : '';
            const text = storableText(piece.slice(0, piece.length - held.length));
            if (text) yield { type: 'delta', text };
          }
        }
      } catch (error) {
        if (!(ended && call.endedEarly)) throw error;
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
  if (!isJsonObject(data)) throw notACompletion();
  if (event.event === 'error') throw new APIError(undefined, data.error, data.message, undefined);
  if (data.error) throw new APIError(undefined, data.error, undefined, response.headers);
  return data;
}

const notACompletion = () => new ChatModelFailedError('the language model sent an answer that is not a chat completion');

/** A message's or a delta's text: a string, or nothing; anything else is not OpenAI's answer. */
function contentOf(content: unknown): string {
  if (content === null || content === undefined) return '';
  if (typeof content !== 'string') throw notACompletion();
  return content;
}

/** The name the server gives its model, stored with the reply: printable and bounded, else none. */
function modelNameOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const name = storableText(value.replace(/\p{Cc}+/gu, '')).trim();
  return name === '' ? null : truncateCodePoints(name, MAX_MODEL_NAME);
}

const MAX_MODEL_NAME = 200;

/**
 * Why the answer ended, when it says: OpenAI's reasons are short words (stop, length,
 * content_filter, tool_calls), and so are other servers'; anything else is a plain stop.
 */
function finishReasonOf(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  const reason = typeof value === 'string' ? value.toLowerCase() : '';
  return /^[a-z][a-z_]{0,31}$/.test(reason) ? reason : 'stop';
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

/** The server's count, when it is one (domain/reply.ts tokenUsage): a bad count is none, and the reply is estimated. */
function usageOf(usage: OpenAI.CompletionUsage | null | undefined): TokenUsage | null {
  if (typeof usage !== 'object' || usage === null) return null;
  return tokenUsage(usage.prompt_tokens, usage.completion_tokens, usage.total_tokens);
}

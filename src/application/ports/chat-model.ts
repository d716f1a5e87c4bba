import type { Persona } from '../../domain/persona.js';
import type { HistoryTurn } from '../../domain/chat-history.js';
import type { TokenUsage } from '../../domain/reply.js';

export type { HistoryTurn } from '../../domain/chat-history.js';
export type { TokenUsage } from '../../domain/reply.js';

export interface ChatRequest {
  persona: Persona;
  /** Earlier turns of the conversation, oldest first, already bounded. */
  history: HistoryTurn[];
  /** The user's new message. */
  text: string;
  /** Added to the persona's system prompt for this request only (OpenAI's `instructions`). */
  instructions?: string;
  /** At most this many tokens of reply: the model stops there with `length`. */
  maxOutputTokens?: number;
  /** Sampling temperature, 0..2, for models that take one. */
  temperature?: number;
  /** When given, the whole system prompt instead of the persona's (a side task, such as naming the conversation). */
  systemPrompt?: string;
}

export interface ChatReply {
  text: string;
  /** Why the model stopped: "stop", "length", ... as the model reports it. */
  finishReason: string;
  model: string;
  usage: TokenUsage | null;
}

export type ChatChunk =
  | { type: 'delta'; text: string }
  | { type: 'finish'; finishReason: string; model: string; usage: TokenUsage | null };

/**
 * A language model. Failures are thrown as ChatModelFailedError / ChatModelTimedOutError;
 * an aborted `signal` ends the call promptly.
 */
export interface ChatModel {
  /** The model's configured name, recorded on replies cut short before the model reported one. */
  readonly name?: string;
  /**
   * True for a model that answers `complete` in this process without waiting on anything (the
   * offline one): there is nothing to stop midway, so callers need not make it a signal.
   */
  readonly immediate?: boolean;
  complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatReply>;
  /** Pieces of the reply as they are made, then one `finish`. */
  stream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<ChatChunk>;
  /** Its own count of a reply's tokens, for a reply it did not finish (so gave no count): as it counts finished ones. */
  estimateUsage?(request: ChatRequest, text: string): TokenUsage;
}

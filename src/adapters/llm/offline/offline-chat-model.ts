import { setTimeout as sleep } from 'node:timers/promises';
import type {
  ChatChunk,
  ChatModel,
  ChatReply,
  ChatRequest,
  TokenUsage,
} from '../../../application/ports/chat-model.js';
import { ChatModelFailedError } from '../../../domain/errors.js';
import type { Persona } from '../../../domain/persona.js';
import { elizaReply } from './eliza-rules.js';

export const OFFLINE_MODEL_NAME = 'offline-eliza';

export interface OfflineChatModelOptions {
  /** Pause between streamed words, so clients see a stream rather than one burst. */
  streamDelayMs?: number;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  throw signal.reason ?? Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
}

/** What `\s` matches in a JavaScript regular expression (printable ASCII, most text, decided by the first test). */
function isSpace(code: number): boolean {
  if (code > 0x20 && code < 0xa0) return false;
  return (
    (code >= 0x09 && code <= 0x0d) || code === 0x20 || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
  );
}

/** Runs of non-space characters (as `text.split(/\s+/u)` without the empty ends), counted without making them. */
export function wordCount(text: string): number {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = isSpace(text.charCodeAt(i));
    if (!space && !inWord) count++;
    inWord = !space;
  }
  return count;
}

/** The words of a persona's description, counted once per persona (every request of the service shares one). */
const descriptionCounts = new WeakMap<Persona, number>();
function descriptionWords(persona: Persona): number {
  let count = descriptionCounts.get(persona);
  if (count === undefined) descriptionCounts.set(persona, (count = wordCount(persona.description)));
  return count;
}

/** The text's first `max` words (its tokens, to this model), with the space after each; all of it when shorter or no limit. */
function cutToWords(text: string, max: number | undefined): string {
  if (max === undefined) return text;
  const words = text.match(/\S+\s*/gu) ?? [];
  return words.length <= max ? text : words.slice(0, Math.max(1, max)).join('');
}

/**
 * The default language model: a small ELIZA-style responder that needs no network and no
 * weights, so the service works (and its tests are deterministic) anywhere.
 */
export class OfflineChatModel implements ChatModel {
  readonly name = OFFLINE_MODEL_NAME;
  /** `complete` answers at once, in this process: nothing can stop it midway. */
  readonly immediate = true;
  private readonly streamDelayMs: number;

  constructor(options: OfflineChatModelOptions = {}) {
    this.streamDelayMs = Math.max(0, options.streamDelayMs ?? 15);
  }

  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatReply> {
    return this.reply(request, signal);
  }

  async *stream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatChunk> {
    const reply = this.reply(request, signal);
    // Each piece keeps its trailing whitespace, so the deltas concatenate to exactly reply.text.
    const pieces = reply.text.match(/\S+\s*/gu) ?? [reply.text];
    for (const [index, piece] of pieces.entries()) {
      if (index > 0) await this.pause(signal);
      yield { type: 'delta', text: piece };
    }
    throwIfAborted(signal);
    yield { type: 'finish', finishReason: reply.finishReason, model: reply.model, usage: reply.usage };
  }

  private reply(request: ChatRequest, signal: AbortSignal | undefined): ChatReply {
    throwIfAborted(signal);
    let text: string;
    try {
      text = elizaReply(request);
    } catch (error) {
      // Only a bug can land here; the port promises callers a ChatModelFailedError for it.
      throw new ChatModelFailedError(`offline model failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    const cut = cutToWords(text, request.maxOutputTokens);
    return { text: cut, finishReason: cut === text ? 'stop' : 'length', model: OFFLINE_MODEL_NAME, usage: this.estimateUsage(request, cut) };
  }

  /** Words, not real tokens: an honest order of magnitude with no tokenizer to consult (a stopped reply is counted the same way). */
  estimateUsage(request: ChatRequest, reply: string): TokenUsage {
    const promptTokens =
      descriptionWords(request.persona) +
      wordCount(request.instructions ?? '') +
      request.history.reduce((sum, turn) => sum + wordCount(turn.text), 0) +
      wordCount(request.text);
    const completionTokens = wordCount(reply);
    return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
  }

  private async pause(signal: AbortSignal | undefined): Promise<void> {
    throwIfAborted(signal);
    if (this.streamDelayMs === 0) return;
    try {
      // Passing the signal makes an abort end the wait at once instead of after the delay.
      await sleep(this.streamDelayMs, undefined, { signal });
    } catch (error) {
      throwIfAborted(signal);
      throw error;
    }
  }
}

import { Message } from './message.js';
import { codePointLength } from './text.js';

/**
 * A reply of the assistant, and its life: opened empty and `in_progress` for the user message
 * it answers, grown while the model speaks, then finished (`completed`) with a finish reason —
 * the model's own, or one of ours when it was cut short. A reply in progress whose producer
 * stopped showing signs of life is stale, and is finished as interrupted. Every state change
 * is a pure function here; the stores apply the same rules (through the ReplyRepository port).
 */

/** Why a reply ended early: stopped on request, the model failed, or its producer went away. */
export const CUT_SHORT = ['cancelled', 'error', 'interrupted'] as const;
export type CutShort = (typeof CUT_SHORT)[number];

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** More tokens than any model call could use: a count past it is not a count. */
const MAX_CALL_TOKENS = 1_000_000_000;

const tokenCount = (value: unknown): number | null => (Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= MAX_CALL_TOKENS ? (value as number) : null);

/**
 * A model's own count of a call's tokens, as it reported it, when it is one: whole numbers of
 * tokens, none negative or absurd. Anything else (a count missing a part, a fraction, a string)
 * is no count (null), and the caller estimates instead. The total is the two parts' sum unless
 * the model's own total is a valid count no smaller (some count more than the two, as cached or
 * reasoning tokens).
 */
export function tokenUsage(prompt: unknown, completion: unknown, total?: unknown): TokenUsage | null {
  const promptTokens = tokenCount(prompt);
  const completionTokens = tokenCount(completion);
  if (promptTokens === null || completionTokens === null) return null;
  const stated = tokenCount(total);
  return { promptTokens, completionTokens, totalTokens: stated !== null && stated >= promptTokens + completionTokens ? stated : promptTokens + completionTokens };
}

/** How a reply ended, as its producer saw it. */
export interface ReplyOutcome {
  finishReason: string;
  /** The model that answered, as it named itself. */
  model: string;
  usage: TokenUsage | null;
  /** For `error`: what failed, as clients may read it. */
  error?: string;
}

/** A new, empty reply to `question` (following it in the tree), in progress since `at` (never before the question itself). */
export function openReply(question: Message, replyId: string, model: string, at: Date): Message {
  return Message.create({
    messageId: replyId,
    conversationId: question.conversationId,
    userId: question.userId,
    role: 'assistant',
    text: '',
    createdAt: at < question.createdAt ? question.createdAt : at,
    metadata: { model },
    replyTo: question.messageId,
    parentId: question.messageId,
    status: 'in_progress',
    progressAt: at,
  });
}

/** The reply with `text` added at `at` (empty text: only a sign of life). */
export function grown(reply: Message, text: string, at: Date): Message {
  return reply.with({ text: reply.text + text, progressAt: at });
}

/** The reply finished with all of its `text`: completed, with the outcome recorded. */
export function finished(reply: Message, text: string, outcome: ReplyOutcome): Message {
  const metadata: Record<string, unknown> = { ...reply.metadata, model: outcome.model };
  if (outcome.usage) {
    const { promptTokens, completionTokens, totalTokens } = outcome.usage;
    metadata.usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: totalTokens };
  }
  if (outcome.error !== undefined) metadata.error = outcome.error;
  return reply.with({ text: text.trim() === '' ? '' : text, metadata, status: 'completed', progressAt: null, finishReason: outcome.finishReason });
}

/** The reply ended as it stands, for one of our reasons (stopped, interrupted). */
export function cutShort(reply: Message, reason: CutShort): Message {
  return reply.with({ status: 'completed', progressAt: null, finishReason: reason });
}

/** A finished reply that does not count as an answer: repeating its question asks the model again. */
export function isCutShort(reply: Message): boolean {
  return reply.status === 'completed' && (CUT_SHORT as readonly string[]).includes(reply.finishReason ?? '');
}

/** When the reply's producer last advanced it or showed it is alive. */
export function lastSignOfLife(reply: Message): Date {
  return reply.progressAt ?? reply.createdAt;
}

/** Replies in progress with no sign of life since this moment (inclusive) are stale at `now`. */
export function staleBefore(now: Date, staleMs: number): Date {
  return new Date(now.getTime() - staleMs);
}

/**
 * The one staleness rule: a reply in progress whose producer has neither advanced it nor said
 * it is alive since `before` (see `staleBefore`) is taken to have died with its producer.
 */
export function isStale(reply: Message, before: Date): boolean {
  return reply.status === 'in_progress' && lastSignOfLife(reply) <= before;
}

/**
 * Whether `text` is more of an interrupted reply than it keeps: longer, and starting with its
 * text (what its streams were sent beyond its last stored write). The one rule of
 * ReplyRepository.extendInterrupted, and of those who ask it.
 */
export function isMoreOfInterrupted(reply: Message, text: string): boolean {
  return reply.status === 'completed' && reply.finishReason === 'interrupted' && text.length > reply.text.length && text.startsWith(reply.text);
}

/** Where a listener stands in a reply: how many code points it holds (the SSE `id`). */
export function replyLength(text: string): number {
  return codePointLength(text);
}

/** The UTF-16 index of code point `position` in `text` (its end when the text is shorter). */
export function indexOfCodePoint(text: string, position: number): number {
  let index = 0;
  for (let seen = 0; seen < position && index < text.length; seen++) {
    const code = text.charCodeAt(index);
    index += code >= 0xd800 && code <= 0xdbff && index + 1 < text.length ? 2 : 1;
  }
  return index;
}

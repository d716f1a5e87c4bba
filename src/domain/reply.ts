import type { Message } from './message.js';
import { codePointLength } from './text.js';

/**
 * Replies of the assistant: written while the model speaks (`in_progress`), then finished
 * (`completed`) with the model's finish reason, or cut short with one of ours.
 */

/** Why a reply ended early: stopped on request, the model failed, or its producer went away. */
export const CUT_SHORT = ['cancelled', 'error', 'interrupted'] as const;
export type CutShort = (typeof CUT_SHORT)[number];

export function finishReasonOf(reply: Message): string | null {
  const reason = reply.metadata.finish_reason;
  return typeof reason === 'string' ? reason : null;
}

/** A finished reply that does not count as an answer: repeating its question asks the model again. */
export function isCutShort(reply: Message): boolean {
  return reply.status === 'completed' && (CUT_SHORT as readonly string[]).includes(finishReasonOf(reply) ?? '');
}

/**
 * A reply in progress whose producer has neither advanced it nor said it is alive for
 * `staleMs` is taken to have died with its producer.
 */
export function isStale(reply: Message, now: Date, staleMs: number): boolean {
  if (reply.status !== 'in_progress') return false;
  const lastSign = reply.progressAt ?? reply.createdAt;
  return now.getTime() - lastSign.getTime() >= staleMs;
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

import type { Message, Role } from './message.js';
import { codePointLength } from './text.js';

/** One earlier turn of a conversation, as a language model sees it. */
export interface HistoryTurn {
  role: Role;
  text: string;
}

/**
 * What a turn's history needs of an earlier message: who said what, and which question a reply
 * answers. A stored Message is one; a store may give less than a whole Message (no times, no
 * metadata), which the history never reads.
 */
export type EarlierMessage = Pick<Message, 'messageId' | 'role' | 'text' | 'replyTo' | 'status'>;

/** How much of a conversation the model sees: at most `messages` earlier messages and `chars` code points of them. */
export interface HistoryBudget {
  messages: number;
  chars: number;
}

/**
 * The turns a model sees before `current`: the most recent first, as many as fit the budget
 * (the oldest are dropped), returned oldest first. `newestFirst` may include `current` itself.
 */
export function recentHistory(newestFirst: readonly EarlierMessage[], current: Pick<Message, 'messageId'>, budget: HistoryBudget): HistoryTurn[] {
  const turns: HistoryTurn[] = [];
  // Counted in UTF-16 units (at least the code points) until they pass the budget, then in code points.
  let chars = 0;
  let exact = false;
  for (const earlier of newestFirst) {
    if (earlier.messageId === current.messageId) continue;
    if (turns.length >= budget.messages) break;
    chars += exact ? codePointLength(earlier.text) : earlier.text.length;
    if (!exact && chars > budget.chars) {
      chars = turns.reduce((sum, turn) => sum + codePointLength(turn.text), codePointLength(earlier.text));
      exact = true;
    }
    if (chars > budget.chars) break;
    turns.push({ role: earlier.role, text: earlier.text });
  }
  return turns.reverse();
}

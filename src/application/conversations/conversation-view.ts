import type { ConversationSummary } from '../ports/conversation-repository.js';
import { expiresAt, type ConversationSettings } from './sweep-conversations.js';

/** A conversation as its owner is shown it: with when it will be deleted, if ever. */
export type ConversationView = ConversationSummary & { expiresAt: Date | null };

export function viewOf(summary: ConversationSummary, settings: ConversationSettings): ConversationView {
  return { ...summary, expiresAt: expiresAt(settings, summary.activeAt, summary.conversation.temporary) };
}

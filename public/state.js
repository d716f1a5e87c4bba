// What the page knows between events: the user, the conversation shown, where paging continues
// and the reply being streamed; and what of it outlives a reload (the user name in localStorage,
// the conversation in the URL's hash).

import { FORBIDDEN_IN_ID, MAX_ID_LENGTH } from './id-rule.js';

/** @typedef {import('./api-types.js').ConversationSummary} ConversationSummary */

/**
 * The reply the page is reading. Dropping its connection (`controller`) leaves it running in the
 * service; Stop asks the service to end it (`stopping`), once `messageId` names it.
 * `question`: what Try again asks a new reply to, when the reply fails (its question, or a reply to it).
 * @typedef {{controller: AbortController, messageId: string | null, stopping: boolean, question?: string}} ReplyInFlight
 */

/**
 * The search shown: its query, where its results continue, and a count that changes with every
 * new search or user, so late answers for an earlier one are dropped.
 * @typedef {{q: string | null, cursor: string | null, run: number}} SearchShown
 */

export const PAGE_SIZE = 30;
export const CONVERSATION_PAGE_SIZE = 20;
const USER_KEY = 'assistant-demo.user_id';
const HASH_KEY = 'conversation';

export const state = {
  /** @type {string | null} */ userId: null,
  /** @type {string | null} */ conversationId: null,
  /** Whether the conversation shown was started here as a temporary one (never listed, searched or exported). */
  temporary: false,
  /** Changes whenever another conversation is shown, so late answers for the old one are dropped. */
  view: 0,
  /** `next_cursor` of the newest-first pages: where older messages continue; null when none are left. */
  /** @type {string | null} */ olderCursor: null,
  loadingOlder: false,
  /** @type {string | null} */ conversationCursor: null,
  /** The sidebar lists the archived conversations (only) instead of the others. */
  showArchived: false,
  /** @type {Map<string, ConversationSummary>} */
  conversations: new Map(),
  /**
   * The conversation shown, as read for its heading when the sidebar's listing does not hold it
   * (archived, or beyond the pages loaded, or opened from a search result).
   * @type {ConversationSummary | null}
   */
  shown: null,
  /**
   * Titles streams gave (their `title` event) that no listing has shown yet: a listing read before
   * the title was stored, or answered after the event, would otherwise show the conversation untitled.
   * @type {Map<string, {title: string | null, title_source: ConversationSummary['title_source']}>}
   */
  streamedTitles: new Map(),
  /** @type {ReplyInFlight | null} */ streaming: null,
  /** @type {SearchShown} */ search: { q: null, cursor: null, run: 0 },
  assistantName: 'Assistant',
};

/**
 * Why the service would refuse `value` as a user id ('' when it would not), by its own rule
 * (id-rule.js, generated from it): 1..MAX_ID_LENGTH code points, none of them forbidden.
 * @param {string} value
 */
export function userIdProblem(value) {
  const length = [...value].length;
  if (length === 0) return 'Enter a user name.';
  if (length > MAX_ID_LENGTH) return `A user name has at most ${MAX_ID_LENGTH} characters.`;
  if (FORBIDDEN_IN_ID.test(value)) return 'A user name cannot contain control characters or broken Unicode.';
  return '';
}

export function storedUser() {
  try {
    return localStorage.getItem(USER_KEY);
  } catch {
    return null; // storage disabled: the name is simply not remembered
  }
}

/** @param {string} userId */
export function storeUser(userId) {
  try {
    localStorage.setItem(USER_KEY, userId);
  } catch {
    // storage disabled
  }
}

export function conversationFromHash() {
  const value = new URLSearchParams(location.hash.slice(1)).get(HASH_KEY);
  return value || null;
}

/** @param {string | null} conversationId */
export function setHash(conversationId) {
  const url = new URL(location.href);
  url.hash = conversationId ? new URLSearchParams({ [HASH_KEY]: conversationId }).toString() : '';
  history.replaceState(null, '', conversationId ? url : url.pathname + url.search);
}

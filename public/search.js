// Searching the user's messages, and opening a result: its conversation, on the branch that
// holds it, scrolled to the message.
import { ApiError, describeError, searchMessages, switchBranch } from './api.js';
import { announce, ui } from './dom.js';
import { loadOlderMessages } from './messages.js';
import { clearSearch, renderSearchResult } from './render-search.js';
import { openConversation } from './session.js';
import { state } from './state.js';

const RESULT_PAGE_SIZE = 20;
/** Older pages read at most to reach a result's message (30 messages each). */
const MAX_PAGES_TO_MESSAGE = 40;

/** The first page of results for `q`, or (append) the next page of the current search. @param {{q?: string, append?: boolean}} options */
export async function runSearch({ q, append = false }) {
  const userId = state.userId;
  const search = state.search;
  const query = append ? search.q : (q ?? '').trim();
  if (!userId || !query) return;
  if (!append) {
    clearSearch();
    search.q = query;
  }
  const run = search.run;
  ui.searchStatus.textContent = 'Searching…';
  try {
    const page = await searchMessages({ user_id: userId, q: query, limit: RESULT_PAGE_SIZE, cursor: append ? search.cursor : null });
    if (run !== search.run) return;
    for (const result of page.results) ui.searchResults.append(renderSearchResult(result));
    search.cursor = page.next_cursor;
    ui.moreResults.hidden = page.next_cursor === null;
    const shown = ui.searchResults.childElementCount;
    ui.searchStatus.textContent = shown === 0 ? `Nothing found for “${query}”.` : `${shown} result${shown === 1 ? '' : 's'}${page.next_cursor ? ' so far' : ''}.`;
  } catch (error) {
    if (run !== search.run) return;
    ui.searchStatus.textContent = `Could not search: ${describeError(error)}`;
  }
}

/**
 * Opens a result: the branch holding the message becomes the active one (where the service has
 * branches; without them the route is unknown, a 404 that is simply passed over), then its
 * conversation is shown, older pages read until the message is there, and it is scrolled to.
 * @param {string} conversationId @param {string} messageId
 */
export async function openResult(conversationId, messageId) {
  const userId = state.userId;
  if (!userId) return;
  try {
    await switchBranch({ user_id: userId, conversation_id: conversationId, message_id: messageId });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) ui.searchStatus.textContent = `Could not switch to the message's branch: ${describeError(error)}`;
  }
  await openConversation(conversationId);
  const selector = `#message-list [data-message-id="${CSS.escape(messageId)}"]`;
  for (let pages = 0; !document.querySelector(selector) && state.olderCursor !== null && pages < MAX_PAGES_TO_MESSAGE; pages++) {
    const view = state.view;
    await loadOlderMessages();
    if (view !== state.view) return; // another conversation was opened meanwhile
  }
  const item = document.querySelector(selector);
  if (!(item instanceof HTMLElement)) {
    announce('The message found is no longer in this conversation.');
    return;
  }
  for (const earlier of ui.messageList.querySelectorAll('.message--found')) earlier.classList.remove('message--found');
  item.classList.add('message--found');
  item.tabIndex = -1;
  item.scrollIntoView({ block: 'center' });
  item.focus({ preventScroll: true });
  announce('Showing the message found.');
}

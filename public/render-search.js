// Search results as DOM, text only: the snippet's matches are <mark> elements holding text
// nodes, never HTML from the service. A click on a result is answered by one listener (app.js).
import { element, formatTime, ui } from './dom.js';
import { state } from './state.js';

/** @typedef {import('./api-types.js').SearchResult} SearchResult */

const ROLES = /** @type {Record<string, string>} */ ({ user: 'You', assistant: 'Assistant', system: 'System' });

/**
 * The snippet with its highlights marked; offsets count code points, as the service's do.
 * @param {string} snippet @param {{start: number, end: number}[]} highlights
 */
export function markedSnippet(snippet, highlights) {
  const chars = [...snippet];
  const node = element('span', { class: 'search-result__snippet', dir: 'auto' });
  let at = 0;
  for (const { start, end } of highlights) {
    if (start < at || end > chars.length || end <= start) continue; // not in order: shown unmarked
    node.append(chars.slice(at, start).join(''), element('mark', {}, chars.slice(start, end).join('')));
    at = end;
  }
  node.append(chars.slice(at).join(''));
  return node;
}

/** One result: the conversation's title, the snippet, who wrote it and when. @param {SearchResult} result */
export function renderSearchResult(result) {
  const item = element('li');
  const button = element('button', {
    type: 'button',
    class: 'search-result',
    'data-conversation-id': result.conversation_id,
    'data-message-id': result.message.message_id,
  });
  const title = element('span', { class: 'search-result__title', dir: 'auto' }, result.conversation_title?.trim() || 'Untitled conversation');
  const who = ROLES[result.message.role] ?? result.message.role;
  const meta = element('span', { class: 'search-result__meta' }, `${who} · ${formatTime(result.message.created_at)}`);
  button.append(title, markedSnippet(result.snippet, result.highlights), meta);
  item.append(button);
  return item;
}

/** Forgets the search shown (a new search, another user). */
export function clearSearch() {
  state.search.run += 1;
  state.search.q = null;
  state.search.cursor = null;
  ui.searchResults.replaceChildren();
  ui.searchStatus.textContent = '';
  ui.moreResults.hidden = true;
}

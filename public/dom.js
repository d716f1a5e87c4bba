// The page's elements and small DOM helpers. Text from the server is only ever set as
// textContent (or appended as a text node), never as HTML.

/**
 * The element `selector` finds under `root`, which the markup guarantees: a missing one is a
 * broken page, so it fails at once rather than later as a null.
 * @template {Element} T
 * @param {ParentNode} root @param {string} selector @param {{new (): T, prototype: T}} type
 * @returns {T}
 */
export function find(root, selector, type) {
  const node = root.querySelector(selector);
  if (!(node instanceof type)) throw new Error(`the page has no ${type.name} at ${selector}`);
  return node;
}

/** @template {Element} T @param {string} id @param {{new (): T, prototype: T}} type */
const byId = (id, type) => find(document, `#${id}`, type);

export const ui = {
  userForm: byId('user-form', HTMLFormElement),
  userName: byId('user-name', HTMLInputElement),
  tokenPanel: byId('token-panel', HTMLDetailsElement),
  tokenForm: byId('token-form', HTMLFormElement),
  tokenValue: byId('token-value', HTMLInputElement),
  searchForm: byId('search-form', HTMLFormElement),
  searchText: byId('search-text', HTMLInputElement),
  searchSubmit: byId('search-submit', HTMLButtonElement),
  searchStatus: byId('search-status', HTMLElement),
  searchResults: byId('search-results', HTMLElement),
  moreResults: byId('more-results', HTMLButtonElement),
  newConversation: byId('new-conversation', HTMLButtonElement),
  conversationsHeading: byId('conversations-heading', HTMLElement),
  showArchived: byId('show-archived', HTMLButtonElement),
  conversationsStatus: byId('conversations-status', HTMLElement),
  conversationList: byId('conversation-list', HTMLElement),
  moreConversations: byId('more-conversations', HTMLButtonElement),
  chatTitle: byId('chat-title', HTMLElement),
  chatMeta: byId('chat-meta', HTMLElement),
  scroller: byId('message-scroller', HTMLElement),
  loadOlder: byId('load-older', HTMLButtonElement),
  messageList: byId('message-list', HTMLElement),
  emptyNote: byId('empty-note', HTMLElement),
  chatStatus: byId('chat-status', HTMLElement),
  composer: byId('composer', HTMLFormElement),
  text: byId('composer-text', HTMLTextAreaElement),
  send: byId('send', HTMLButtonElement),
  stop: byId('stop', HTMLButtonElement),
  speak: byId('speak-replies', HTMLInputElement),
  temporary: byId('temporary-chat', HTMLInputElement),
  temporaryLabel: byId('temporary-label', HTMLElement),
  persona: find(document, 'section.persona', HTMLElement),
  personaName: byId('persona-name', HTMLElement),
  personaDescription: byId('persona-description', HTMLElement),
  personaTraits: byId('persona-traits', HTMLElement),
  personaDescriptors: byId('persona-descriptors', HTMLElement),
  personaStyle: byId('persona-style', HTMLElement),
  usageRefresh: byId('usage-refresh', HTMLButtonElement),
  usageStatus: byId('usage-status', HTMLElement),
  usageCounts: byId('usage-counts', HTMLElement),
  usageLimits: byId('usage-limits', HTMLElement),
  graphStatus: byId('graph-status', HTMLElement),
  graphRefresh: byId('graph-refresh', HTMLButtonElement),
  exportNdjson: byId('export-ndjson', HTMLButtonElement),
  exportChatGpt: byId('export-chatgpt', HTMLButtonElement),
  conversationExport: byId('conversation-export', HTMLElement),
  exportJson: byId('export-json', HTMLButtonElement),
  exportMarkdown: byId('export-markdown', HTMLButtonElement),
  importForm: byId('import-form', HTMLFormElement),
  importFile: byId('import-file', HTMLInputElement),
  importSubmit: byId('import-submit', HTMLButtonElement),
  importProgress: byId('import-progress', HTMLProgressElement),
  importStatus: byId('import-status', HTMLElement),
};

/**
 * A new element with attributes and, optionally, text.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {Record<string, string>} [attributes] @param {string} [text]
 */
export function element(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** @param {string | null | undefined} iso */
export function formatTime(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  const sameDay = date.toDateString() === new Date().toDateString();
  return sameDay
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}

/** Says something to screen readers (the polite status line under the conversation). @param {string} message */
export function announce(message) {
  ui.chatStatus.textContent = '';
  // A fresh text node, a moment later, so the same words twice are announced twice.
  requestAnimationFrame(() => {
    ui.chatStatus.textContent = message;
  });
}

export const nearBottom = () => ui.scroller.scrollHeight - ui.scroller.scrollTop - ui.scroller.clientHeight < 48;

export const scrollToBottom = () => {
  ui.scroller.scrollTop = ui.scroller.scrollHeight;
};

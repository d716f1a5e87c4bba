// The demo chat page: plain JavaScript modules, no framework, no build step. It uses only the
// service's public API, through URLs relative to the page, so it works on any host and port
// (and under a path prefix). Text from the server is only ever set as textContent.
//
// This module wires the page: its event handlers and its start-up. The others, one job each:
// api.js (every request; api-types.js the JSON shapes, from the generated openapi-types.d.ts;
// sse.js the event-stream reader; credentials.js the access token, when the service requires
// one), state.js (what the page knows; id-rule.js, generated, what an id may be), dom.js and render-*.js (building the DOM), and the flows
// that join them: chat.js (sending, the streamed reply; reply-follow.js keeps it going across
// dropped connections; speech.js speaks it), messages.js (paging, delete, speech),
// conversation-list.js, session.js (the user, the conversation shown), search.js (searching,
// opening a result at its message), about.js (persona, status), usage.js (the user's usage
// today and the limits the service stated),
// branches.js (edit, regenerate, "‹ 2/3 ›"; render-tree.js and tree.js show the tree).
import { loadGraphStatus, loadPersona } from './about.js';
import { cancelEdit, regenerate, showVersion, startEdit, submitEdit, tryAgain } from './branches.js';
import { sendMessage } from './chat.js';
import { stopReply } from './reply-controls.js';
import { storedToken, useToken } from './credentials.js';
import { cancel as cancelEntryForm, conversationAction, submitTitle } from './conversation-actions.js';
import { loadConversations, showArchived } from './conversation-list.js';
import { find, ui } from './dom.js';
import { deleteMessage, loadOlderMessages, playMessage } from './messages.js';
import { markCurrentConversation } from './render-conversations.js';
import { updateEmptyNote } from './render-messages.js';
import { openResult, runSearch } from './search.js';
import { openConversation, useName } from './session.js';
import { chooseSpeaking, speakingChosen } from './speech.js';
import { loadUsage } from './usage.js';
import { exportAll, exportConversation, importChosenFile, updateTransferControls } from './transfer.js';
import { conversationFromHash, setHash, state, storedUser, userIdProblem } from './state.js';

ui.userForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const userId = ui.userName.value.trim();
  const problem = userIdProblem(userId);
  ui.userName.setCustomValidity(problem);
  if (problem) {
    ui.userName.reportValidity();
    return;
  }
  if (userId !== state.userId) setHash(null); // another user's conversation is not this one's
  void useName(userId).then(() => ui.text.focus());
});
ui.userName.addEventListener('input', () => ui.userName.setCustomValidity(''));

// A new access token: everything the page shows is asked for again with it.
ui.tokenForm.addEventListener('submit', (event) => {
  event.preventDefault();
  useToken(ui.tokenValue.value);
  void loadPersona();
  void loadGraphStatus();
  if (state.userId) void useName(state.userId);
});

ui.composer.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = ui.text.value;
  if (!text.trim() || state.streaming || !state.userId) return;
  ui.text.value = '';
  void sendMessage(text);
});

ui.text.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    ui.composer.requestSubmit();
  }
});

ui.stop.addEventListener('click', () => stopReply());
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && state.streaming) stopReply();
});
ui.speak.checked = speakingChosen();
ui.speak.addEventListener('change', () => chooseSpeaking(ui.speak.checked));

ui.newConversation.addEventListener('click', () => {
  void openConversation(null);
  ui.text.focus();
});

// One listener per list answers the buttons of every entry, present and future: open one, or
// Rename, Pin, Archive, Delete (conversation-actions.js).
ui.conversationList.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button') : null;
  if (!(button instanceof HTMLButtonElement) || button.type === 'submit' || conversationAction(button)) return;
  const conversationId = button.classList.contains('conversation') ? button.dataset.conversationId : undefined;
  if (!conversationId) return;
  void openConversation(conversationId);
  // On a narrow screen the chat is below the sidebar: bring it into view (the keyboard stays on the entry).
  if (matchMedia('(max-width: 50rem)').matches) ui.chatTitle.scrollIntoView({ block: 'start' });
});
ui.conversationList.addEventListener('submit', (event) => {
  event.preventDefault();
  if (event.target instanceof HTMLFormElement) submitTitle(event.target);
});
ui.conversationList.addEventListener('keydown', (event) => {
  const item = event.target instanceof Element ? event.target.closest('li.conversation-item') : null;
  if (event.key !== 'Escape' || !(item instanceof HTMLElement) || !item.matches('.is-editing, .is-confirming')) return;
  event.stopPropagation(); // closes the editor or the confirm, and stops no reply
  cancelEntryForm(item);
});
ui.showArchived.addEventListener('click', () => void showArchived(!state.showArchived));
ui.messageList.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button') : null;
  const item = button?.closest('li.message');
  if (!(button instanceof HTMLButtonElement) || !(item instanceof HTMLElement)) return;
  if (button.classList.contains('message__retry')) return void tryAgain(item);
  const note = find(item, '.message__note', HTMLElement);
  if (button.classList.contains('message__play')) void playMessage(item, button, note);
  else if (button.classList.contains('message__delete')) void deleteMessage(item, button, note);
  else if (button.classList.contains('message__edit')) startEdit(item);
  else if (button.classList.contains('message__editor-cancel')) cancelEdit(item);
  else if (button.classList.contains('message__regenerate')) void regenerate(item);
  else if (button.classList.contains('message__version')) void showVersion(item, button);
});
// The editor of a message (Edit): Enter sends, Shift+Enter is a new line, Escape cancels.
ui.messageList.addEventListener('submit', (event) => {
  const form = event.target;
  const item = form instanceof HTMLFormElement ? form.closest('li.message') : null;
  event.preventDefault();
  if (form instanceof HTMLFormElement && item instanceof HTMLElement) void submitEdit(item, form);
});
ui.messageList.addEventListener('keydown', (event) => {
  const field = event.target instanceof HTMLTextAreaElement ? event.target : null;
  const item = field?.closest('li.message');
  if (!field?.form || !(item instanceof HTMLElement) || event.isComposing) return;
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    field.form.requestSubmit();
  } else if (event.key === 'Escape') {
    event.stopPropagation(); // closes the editor, and stops no reply
    cancelEdit(item);
  }
});

ui.searchForm.addEventListener('submit', (event) => {
  event.preventDefault();
  void runSearch({ q: ui.searchText.value });
});
ui.moreResults.addEventListener('click', () => void runSearch({ append: true }));
ui.searchResults.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button.search-result') : null;
  if (!(button instanceof HTMLElement)) return;
  const { conversationId, messageId } = button.dataset;
  if (conversationId && messageId) void openResult(conversationId, messageId);
});

ui.moreConversations.addEventListener('click', async () => {
  await loadConversations({ append: true });
  // The last page hides the button: the keyboard goes on from the last conversation listed, not from the page's top.
  const last = ui.conversationList.querySelector('li:last-child .conversation');
  if (ui.moreConversations.hidden && document.activeElement === document.body && last instanceof HTMLElement) last.focus();
});
ui.loadOlder.addEventListener('click', () => void loadOlderMessages());
ui.scroller.addEventListener(
  'scroll',
  () => {
    if (ui.scroller.scrollTop < 80 && state.olderCursor !== null) void loadOlderMessages();
  },
  { passive: true },
);
ui.graphRefresh.addEventListener('click', () => void loadGraphStatus());
ui.usageRefresh.addEventListener('click', () => void loadUsage());
ui.exportNdjson.addEventListener('click', () => void exportAll('ndjson'));
ui.exportChatGpt.addEventListener('click', () => void exportAll('chatgpt'));
ui.exportJson.addEventListener('click', () => void exportConversation('json'));
ui.exportMarkdown.addEventListener('click', () => void exportConversation('markdown'));
ui.importFile.addEventListener('change', () => updateTransferControls());
ui.importForm.addEventListener('submit', (event) => {
  event.preventDefault();
  importChosenFile(() => void loadConversations());
});

window.addEventListener('hashchange', () => {
  const fromHash = conversationFromHash();
  if (state.userId && fromHash !== state.conversationId) void openConversation(fromHash);
});

ui.tokenValue.value = storedToken();
ui.tokenPanel.open = storedToken() !== '';
void loadPersona();
void loadGraphStatus();
markCurrentConversation();
updateEmptyNote();
const remembered = storedUser();
if (remembered && !userIdProblem(remembered)) {
  void useName(remembered);
} else {
  ui.userName.focus();
}

// Who uses the page and which conversation they look at: choosing the user name, opening a
// conversation (or a new, empty one).
import { leaveReply, setStreaming } from './reply-controls.js';
import { loadConversations, readShownConversation } from './conversation-list.js';
import { ui } from './dom.js';
import { loadOlderMessages } from './messages.js';
import { markCurrentConversation, showTemporaryChoice } from './render-conversations.js';
import { clearMessages } from './render-messages.js';
import { clearSearch } from './render-search.js';
import { conversationFromHash, setHash, state, storeUser } from './state.js';
import { loadUsage } from './usage.js';
import { updateTransferControls } from './transfer.js';

/** Shows a conversation (or, with null, an empty new one). @param {string | null} conversationId */
export async function openConversation(conversationId) {
  leaveReply();
  state.view += 1;
  state.conversationId = conversationId;
  state.temporary = false;
  if (state.shown?.conversation_id !== conversationId) state.shown = null;
  state.olderCursor = null;
  state.loadingOlder = false;
  ui.loadOlder.hidden = true;
  setHash(conversationId);
  clearMessages();
  markCurrentConversation();
  showTemporaryChoice();
  updateTransferControls();
  void readShownConversation();
  if (conversationId) await loadOlderMessages();
}

/** Makes `userId` the page's user: their conversations, and the one the URL names. @param {string} userId */
export async function useName(userId) {
  const changed = userId !== state.userId;
  state.userId = userId;
  ui.userName.value = userId;
  storeUser(userId);
  ui.text.disabled = false;
  ui.newConversation.disabled = false;
  ui.showArchived.disabled = false;
  ui.searchText.disabled = false;
  ui.searchSubmit.disabled = false;
  setStreaming(false);
  updateTransferControls();
  if (changed) {
    clearSearch();
    state.showArchived = false;
    ui.showArchived.setAttribute('aria-pressed', 'false');
    ui.showArchived.textContent = 'Show archived';
    ui.conversationsHeading.textContent = 'Conversations';
    state.conversationCursor = null;
    state.conversations.clear();
    state.shown = null;
    state.streamedTitles.clear();
    ui.conversationList.replaceChildren();
  }
  const fromHash = conversationFromHash();
  await Promise.all([
    loadUsage(),
    loadConversations(),
    changed || fromHash !== state.conversationId ? openConversation(changed && !fromHash ? null : fromHash) : Promise.resolve(),
  ]);
}

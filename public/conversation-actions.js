// What the buttons of a sidebar entry do: Rename (its title edited in place), Pin or Unpin,
// Archive or Unarchive, and Delete (after a confirm). Each asks the service, then lists the
// conversations again (pinned first) and puts the keyboard back where it was.
import { deleteConversation, describeError, updateConversation } from './api.js';
import { announce, ui } from './dom.js';
import { loadConversations } from './conversation-list.js';
import { closeEntryForms, entryOf, openDeleteConfirm, openTitleEditor, retitleEntry, titleOf } from './render-conversations.js';
import { openConversation } from './session.js';
import { state } from './state.js';

/** @typedef {import('./api-types.js').ConversationChanges} ConversationChanges */

/**
 * Answers a click on any button of the list; false when it is not one of the actions.
 * @param {HTMLButtonElement} button
 */
export function conversationAction(button) {
  const item = button.closest('li.conversation-item');
  const conversationId = item instanceof HTMLElement ? item.dataset.conversationId : undefined;
  const conversation = conversationId ? state.conversations.get(conversationId) : undefined;
  if (!(item instanceof HTMLElement) || !conversation || !state.userId) return false;
  const { classList } = button;
  if (classList.contains('conversation__rename')) openTitleEditor(item, conversation);
  else if (classList.contains('conversation__pin')) void change(conversation.conversation_id, { pinned: !conversation.pinned }, '.conversation__pin');
  else if (classList.contains('conversation__archive')) void change(conversation.conversation_id, { archived: !conversation.archived }, null);
  else if (classList.contains('conversation__delete')) openDeleteConfirm(item, conversation);
  else if (classList.contains('conversation__confirm-delete')) void remove(conversation.conversation_id);
  else if (classList.contains('conversation__cancel')) cancel(item);
  else return false;
  return true;
}

/** The title editor sent (Enter or Save). @param {HTMLFormElement} form */
export function submitTitle(form) {
  const item = form.closest('li.conversation-item');
  const conversationId = item instanceof HTMLElement ? item.dataset.conversationId : undefined;
  const field = form.elements.namedItem('title');
  if (!conversationId || !(field instanceof HTMLInputElement)) return;
  const title = field.value.trim();
  void change(conversationId, { title: title === '' ? null : title }, '.conversation__rename');
}

/** Closes an entry's editor or confirm unchanged, the keyboard back on its first button. @param {HTMLElement} item */
export function cancel(item) {
  closeEntryForms(item);
  const open = item.querySelector('button.conversation');
  if (open instanceof HTMLElement) open.focus();
}

/**
 * @param {string} conversationId @param {Omit<ConversationChanges, 'user_id'>} changes
 * @param {string | null} refocus the button of the entry to focus again (null: it leaves this list)
 */
async function change(conversationId, changes, refocus) {
  const userId = /** @type {string} */ (state.userId);
  try {
    const { conversation } = await updateConversation(conversationId, { user_id: userId, ...changes });
    if (userId !== state.userId) return;
    state.conversations.set(conversationId, conversation);
    if (conversationId === state.conversationId) state.shown = conversation; // its heading stays when it leaves the list (archived)
    retitleEntry(conversation);
    announce(changes.title !== undefined ? `Renamed to “${titleOf(conversation)}”` : describeChange(changes));
  } catch (error) {
    ui.conversationsStatus.textContent = `Could not change the conversation: ${describeError(error)}`;
    return;
  }
  await loadConversations();
  const again = refocus ? entryOf(conversationId)?.querySelector(refocus) : null;
  if (again instanceof HTMLElement) again.focus();
  else ui.showArchived.focus();
}

/** @param {Omit<ConversationChanges, 'user_id'>} changes */
const describeChange = ({ pinned, archived }) =>
  pinned !== undefined ? (pinned ? 'Pinned' : 'Unpinned') : archived ? 'Archived' : 'Moved back from the archive';

/** @param {string} conversationId */
async function remove(conversationId) {
  const userId = /** @type {string} */ (state.userId);
  try {
    await deleteConversation(conversationId, userId);
    if (userId !== state.userId) return;
    announce('Conversation deleted');
    if (state.conversationId === conversationId) await openConversation(null);
  } catch (error) {
    ui.conversationsStatus.textContent = `Could not delete the conversation: ${describeError(error)}`;
    return;
  }
  await loadConversations();
  ui.newConversation.focus();
}

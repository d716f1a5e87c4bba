// The conversation list and the conversation's heading as DOM, text only. The buttons of every
// entry (open, Rename, Pin, Archive, Delete) are answered by one listener on the list (app.js,
// conversation-actions.js).
import { element, formatTime, ui } from './dom.js';
import { state } from './state.js';

/** @typedef {import('./api-types.js').ConversationSummary} ConversationSummary */

/** @param {number} count */
const messageCount = (count) => (count === 1 ? '1 message' : `${count} messages`);

/** @param {ConversationSummary} conversation */
export const titleOf = (conversation) => conversation.title?.trim() || 'Untitled conversation';

/** @param {string} text @param {string} className @param {Record<string, string>} [attributes] */
const button = (text, className, attributes = {}) => element('button', { type: 'button', class: className, ...attributes }, text);

/** One entry of the list. @param {ConversationSummary} conversation */
export function renderConversation(conversation) {
  const item = element('li', { class: 'conversation-item', 'data-conversation-id': conversation.conversation_id });
  const open = button('', 'conversation', { 'data-conversation-id': conversation.conversation_id });
  const title = element('span', { class: 'conversation__title', dir: 'auto' }, titleOf(conversation));
  const count = messageCount(conversation.message_count);
  const when = formatTime(conversation.last_message_at ?? conversation.created_at);
  const meta = element('span', { class: 'conversation__meta' }, [conversation.pinned ? 'Pinned' : '', count, when].filter(Boolean).join(' · '));
  open.append(title, meta);
  item.append(open, renderActions(conversation));
  return item;
}

/** Rename, Pin or Unpin, Archive or Unarchive, Delete. @param {ConversationSummary} conversation */
function renderActions(conversation) {
  const actions = element('div', { class: 'conversation__actions', role: 'group', 'aria-label': `Manage “${titleOf(conversation)}”` });
  actions.append(
    button('Rename', 'conversation__rename'),
    button(conversation.pinned ? 'Unpin' : 'Pin', 'conversation__pin', { 'aria-pressed': String(conversation.pinned) }),
    button(conversation.archived ? 'Unarchive' : 'Archive', 'conversation__archive'),
    button('Delete', 'conversation__delete'),
  );
  return actions;
}

/** Shows a new title in an entry (and above the messages when it is the one shown). @param {ConversationSummary} conversation */
export function retitleEntry(conversation) {
  const item = entryOf(conversation.conversation_id);
  const title = item?.querySelector('.conversation__title');
  if (title) title.textContent = titleOf(conversation);
  item?.querySelector('.conversation__actions')?.setAttribute('aria-label', `Manage “${titleOf(conversation)}”`);
  markCurrentConversation();
}

/** @param {string} conversationId */
export function entryOf(conversationId) {
  for (const item of ui.conversationList.children) {
    if (item instanceof HTMLElement && item.dataset.conversationId === conversationId) return item;
  }
  return null;
}

/**
 * Opens the title of an entry for editing, in place of its buttons: Enter or Save renames it,
 * Escape or Cancel closes it unchanged; an empty title hands it back to the service.
 * @param {HTMLElement} item @param {ConversationSummary} conversation
 */
export function openTitleEditor(item, conversation) {
  closeEntryForms(item);
  const id = `title-${conversation.conversation_id}`;
  const form = element('form', { class: 'conversation__editor' });
  const label = element('label', { for: id, class: 'visually-hidden' }, 'New title (empty: let the service name it)');
  const input = element('input', { id, type: 'text', name: 'title', maxlength: '200', autocomplete: 'off' });
  input.value = conversation.title_source === 'user' ? conversation.title ?? '' : titleOf(conversation);
  form.append(label, input, element('button', { type: 'submit' }, 'Save'), button('Cancel', 'conversation__cancel'));
  item.classList.add('is-editing');
  item.append(form);
  input.select();
  input.focus();
}

/** Asks before deleting, in place of the entry's buttons. @param {HTMLElement} item @param {ConversationSummary} conversation */
export function openDeleteConfirm(item, conversation) {
  closeEntryForms(item);
  const confirm = element('div', { class: 'conversation__confirm', role: 'group', 'aria-label': 'Confirm delete' });
  confirm.append(
    element('p', {}, `Delete “${titleOf(conversation)}” and all its messages?`),
    button('Delete conversation', 'conversation__confirm-delete'),
    button('Cancel', 'conversation__cancel'),
  );
  item.classList.add('is-confirming');
  item.append(confirm);
  /** @type {HTMLElement | null} */ (confirm.querySelector('.conversation__cancel'))?.focus();
}

/** Closes an entry's editor or confirm, its buttons back. @param {HTMLElement} item */
export function closeEntryForms(item) {
  item.querySelector('.conversation__editor, .conversation__confirm')?.remove();
  item.classList.remove('is-editing', 'is-confirming');
}

/** Marks the conversation shown in the list, and names it above the messages. */
export function markCurrentConversation() {
  for (const button of ui.conversationList.querySelectorAll('button.conversation')) {
    if (!(button instanceof HTMLElement)) continue;
    if (button.dataset.conversationId === state.conversationId) button.setAttribute('aria-current', 'true');
    else button.removeAttribute('aria-current');
  }
  const id = state.conversationId;
  const summary = id ? (state.conversations.get(id) ?? (state.shown?.conversation_id === id ? state.shown : undefined)) : undefined;
  ui.chatTitle.textContent = state.conversationId ? summary?.title?.trim() || (state.temporary ? 'Temporary conversation' : 'Conversation') : 'New conversation';
  ui.chatMeta.textContent = summary
    ? `${messageCount(summary.message_count)}, started ${formatTime(summary.created_at)}`
    : state.conversationId
      ? ''
      : 'Write a message below to start a conversation.';
}

/**
 * The temporary-chat choice is offered for a new conversation only; a temporary one says so in its
 * heading (it is never listed, so the sidebar does not show it).
 */
export function showTemporaryChoice() {
  ui.temporaryLabel.hidden = state.conversationId !== null;
  if (state.temporary) ui.chatTitle.textContent = 'Temporary conversation';
}

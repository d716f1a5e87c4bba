// The messages shown: older pages as the reader scrolls up, deleting one, playing one aloud.
import { deleteMessages, describeError, fetchSpeech, loadMessages, switchBranch } from './api.js';
import { followShownReply } from './chat.js';
import { announce, element, scrollToBottom, ui } from './dom.js';
import { loadConversations } from './conversation-list.js';
import { renderMessage, showConversationError, updateEmptyNote } from './render-messages.js';
import { PAGE_SIZE, state } from './state.js';
import { openConversation } from './session.js';
import { pausePlayers, stopSpeaking } from './speech.js';
import { refreshTree } from './tree.js';
import { loadUsage } from './usage.js';

/** @typedef {import('./api-types.js').LoadMessagesRequest} LoadMessagesRequest */

/**
 * The next page of older messages (the first page when nothing is shown yet), put above the
 * ones shown while the part of the conversation in view stays where it was.
 * @returns {Promise<void>}
 */
export async function loadOlderMessages() {
  const conversationId = state.conversationId;
  if (!conversationId || !state.userId || state.loadingOlder) return;
  const first = ui.messageList.querySelector('[data-message-id]') === null && state.olderCursor === null;
  if (!first && state.olderCursor === null) return;
  const view = state.view;
  state.loadingOlder = true;
  ui.loadOlder.disabled = true;
  updateEmptyNote();
  ui.scroller.setAttribute('aria-busy', 'true');
  /** @type {LoadMessagesRequest} */
  const request = { user_id: state.userId, conversation_id: conversationId, order: 'desc', limit: PAGE_SIZE };
  if (state.olderCursor) request.cursor = state.olderCursor;
  try {
    const page = await loadMessages(request);
    if (view !== state.view) return;
    const fromBottom = ui.scroller.scrollHeight - ui.scroller.scrollTop;
    const fragment = document.createDocumentFragment();
    /** @type {HTMLElement | null} */
    let inProgress = null;
    for (const message of [...page.messages].reverse()) {
      if (ui.messageList.querySelector(`[data-message-id="${CSS.escape(message.message_id)}"]`)) continue;
      const item = renderMessage(message);
      if (message.status === 'in_progress' && message.role === 'assistant') inProgress = item;
      fragment.append(item);
    }
    ui.messageList.prepend(fragment);
    // A reply still being written (a reload, or a conversation left during a reply): its text
    // so far is shown; read the rest as it comes.
    if (inProgress) void followShownReply(inProgress);
    state.olderCursor = page.next_cursor;
    if (first) scrollToBottom();
    else ui.scroller.scrollTop = ui.scroller.scrollHeight - fromBottom;
    if (page.messages.length > 0 && !first) announce(`${page.messages.length} older messages loaded`);
  } catch (error) {
    if (view !== state.view) return;
    showConversationError(`could not load messages: ${describeError(error)}`);
    state.olderCursor = null;
  } finally {
    if (view === state.view) {
      state.loadingOlder = false;
      ui.loadOlder.disabled = false;
      ui.loadOlder.hidden = state.olderCursor === null;
      ui.scroller.removeAttribute('aria-busy');
      updateEmptyNote();
    }
  }
  // Too few messages to scroll: nothing could ever trigger the next page, so fetch it now.
  if (view === state.view && state.olderCursor !== null && ui.scroller.scrollHeight <= ui.scroller.clientHeight) {
    await loadOlderMessages();
  }
}

/** @param {HTMLElement} item @param {HTMLButtonElement} button @param {HTMLElement} note */
export async function deleteMessage(item, button, note) {
  const messageId = item.dataset.messageId;
  if (!messageId || !state.userId || !state.conversationId) return;
  // Read before the button is disabled: a disabled button loses the keyboard (to the page's body).
  const hadFocus = item.contains(document.activeElement);
  button.disabled = true;
  note.textContent = '';
  const { userId, conversationId } = state;
  // The last reply shown, below its question: once it is gone the head is the question, and the
  // question's other replies (its versions) would be out of sight; the latest of them is shown instead.
  const question = item === ui.messageList.lastElementChild && item.dataset.role === 'assistant' ? item.previousElementSibling : null;
  const questionId = question instanceof HTMLElement && question.dataset.role === 'user' ? question.dataset.messageId : undefined;
  try {
    await deleteMessages({ user_id: userId, conversation_id: conversationId, message_ids: [messageId] });
    if (questionId) {
      await switchBranch({ user_id: userId, conversation_id: conversationId, message_id: questionId }).catch(() => {});
      await openConversation(conversationId);
      ui.text.focus();
      announce('Message deleted');
      void loadConversations();
      return;
    }
    // Keep the keyboard where it was: on the next message's delete button, or the message box.
    const neighbour = item.nextElementSibling ?? item.previousElementSibling;
    for (const audio of item.querySelectorAll('audio')) URL.revokeObjectURL(audio.src);
    item.remove();
    updateEmptyNote();
    if (hadFocus) {
      const next = neighbour?.querySelector('.message__delete');
      (next instanceof HTMLElement ? next : ui.text).focus();
    }
    announce('Message deleted');
    void loadConversations();
    void refreshTree(); // its children now follow its parent: their versions may have changed
  } catch (error) {
    button.disabled = false;
    note.textContent = `Not deleted: ${describeError(error)}`;
    note.classList.add('is-error');
  }
}

/**
 * Plays a stored reply aloud: its speech is fetched once, then kept in an <audio> element under it.
 * @param {HTMLElement} item @param {HTMLButtonElement} button @param {HTMLElement} note
 */
export async function playMessage(item, button, note) {
  const messageId = item.dataset.messageId;
  if (!messageId || !state.userId) return;
  let audio = item.querySelector('audio');
  if (audio?.src) {
    audio.currentTime = 0;
    await audio.play().catch(() => {});
    return;
  }
  button.disabled = true;
  button.textContent = 'Loading speech…';
  note.textContent = '';
  note.classList.remove('is-error');
  try {
    const blob = await fetchSpeech(messageId, state.userId);
    audio = element('audio', { controls: '', class: 'message__audio', preload: 'auto' });
    audio.setAttribute('aria-label', `Speech of the message from ${state.assistantName}`);
    audio.src = URL.createObjectURL(blob);
    item.append(audio);
    button.textContent = 'Play aloud';
    // One voice at a time: whenever it starts (this button, or its own controls), the others stop.
    audio.addEventListener('play', () => {
      stopSpeaking();
      pausePlayers(audio);
    });
    await audio.play().catch(() => {});
  } catch (error) {
    button.textContent = 'Play aloud (unavailable)';
    note.textContent = `Speech: ${describeError(error)}`;
    note.classList.add('is-error');
  } finally {
    void loadUsage();
    button.disabled = false;
  }
}

// Versions of a message: editing a question (a new question beside it, under the same parent),
// asking again for a reply (a new reply beside it), and "‹ 2/3 ›" to show another version. The
// new question or reply streams in as any other (chat.js) in place of the old one and what
// followed it; the old ones stay in the service, a switch away.
import { describeError, switchBranch } from './api.js';
import { sendMessage } from './chat.js';
import { announce, find, ui } from './dom.js';
import { closeEditor, openEditor, takeFrom } from './render-tree.js';
import { openConversation } from './session.js';
import { state } from './state.js';

/** Edit opens the editor in place of the text. @param {HTMLElement} item */
export function startEdit(item) {
  if (item.dataset.parentId !== undefined && !state.streaming) openEditor(item);
}

/**
 * Sends the editor's text as a new version of the question: it follows the question's parent
 * (none for a conversation's first message: render-tree.js). A refusal puts everything back, the editor open.
 * @param {HTMLElement} item @param {HTMLFormElement} form
 */
export async function submitEdit(item, form) {
  const field = find(form, 'textarea', HTMLTextAreaElement);
  const text = field.value;
  const parent = item.dataset.parentId;
  if (parent === undefined || !text.trim() || state.streaming || !state.userId) return;
  const parentId = parent === '' ? null : parent;
  if (text === find(item, '.message__text', HTMLElement).textContent) {
    closeEditor(item); // unchanged: nothing to send
    return;
  }
  ui.text.focus(); // the edited message leaves the list; Escape from here stops the reply
  const putBack = takeFrom(item);
  await sendMessage(text, {
    parentId,
    undo: () => {
      putBack();
      field.focus();
    },
  });
}

/** Cancel (or Escape) in the editor. @param {HTMLElement} item */
export const cancelEdit = (item) => closeEditor(item);

/** Regenerate: a new reply to the same question, in place of this one and what followed. @param {HTMLElement} item */
export async function regenerate(item) {
  const replyId = item.dataset.messageId;
  if (!replyId || state.streaming || !state.conversationId) return;
  ui.text.focus();
  await sendMessage('', { regenerate: replyId, undo: takeFrom(item) });
}

/**
 * Try again, on the error of a failed reply: a new reply to its question, in place of the failed
 * reply (when it kept some text) and the error. @param {HTMLElement} item the error
 */
export async function tryAgain(item) {
  const target = item.dataset.retry;
  if (!target || state.streaming || !state.conversationId) return;
  const failed = item.previousElementSibling;
  ui.text.focus(); // the button leaves the list
  const from = failed instanceof HTMLElement && failed.dataset.finishReason === 'error' ? failed : item;
  await sendMessage('', { regenerate: target, undo: takeFrom(from) });
}

/**
 * ‹ or ›: the sibling the button names becomes part of the active branch (the newest message
 * under it the head), and the branch is shown again. The keyboard stays on the control.
 * @param {HTMLElement} item @param {HTMLButtonElement} button
 */
export async function showVersion(item, button) {
  const target = button.dataset.target;
  const { userId, conversationId } = state;
  if (!target || !userId || !conversationId || state.streaming) return;
  const which = button.classList.contains('message__version--previous') ? 'previous' : 'next';
  button.disabled = true;
  try {
    await switchBranch({ user_id: userId, conversation_id: conversationId, message_id: target });
  } catch (error) {
    button.disabled = false;
    const note = find(item, '.message__note', HTMLElement);
    note.textContent = `Not switched: ${describeError(error)}`;
    note.classList.add('is-error');
    return;
  }
  await openConversation(conversationId);
  const shown = ui.messageList.querySelector(`li.message[data-message-id="${CSS.escape(target)}"]`);
  const group = shown?.querySelector('.message__versions');
  const again = group?.querySelector(`.message__version--${which}:not(:disabled)`) ?? group?.querySelector('.message__version:not(:disabled)');
  if (again instanceof HTMLElement) again.focus();
  announce(group?.getAttribute('aria-label') ?? 'Another version shown');
}

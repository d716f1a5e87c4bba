// A message's place in the conversation tree, as DOM: which message it follows (`data-parent-id`),
// its "‹ 2/3 ›" control when it has siblings (other versions: edits of a question, replies
// generated again), and the editor an edit opens in place. Text only; no call to the service
// (branches.js answers the buttons).
import { element, find, ui } from './dom.js';
import { state } from './state.js';

/** @typedef {import('./api-types.js').MessageDraft} MessageDraft */
/** @typedef {import('./api-types.js').Siblings} Siblings */

/** The buttons that start a reply or change the branch: none while a reply is being read. */
const TREE_BUTTONS = '.message__edit, .message__regenerate, .message__versions button, .message__editor-send';

/**
 * Its parent and its versions, as far as `message` tells them (a message not stored yet tells
 * neither, and has no Edit). `data-parent-id` is empty for a conversation's first message: its
 * edit is sent with `parent_id: null`, a new version with no parent beside it.
 * @param {HTMLElement} item @param {MessageDraft} message
 */
export function showTree(item, message) {
  if (message.parent_id !== undefined) item.dataset.parentId = message.parent_id ?? '';
  const edit = item.querySelector('.message__edit');
  if (edit instanceof HTMLElement) edit.hidden = item.dataset.parentId === undefined;
  if (message.siblings) showVersions(item, message.siblings);
}

/** "‹ 2/3 ›": previous and next name the sibling to switch to. @param {HTMLElement} item @param {Siblings} siblings */
function showVersions(item, { count, index, previous_id, next_id }) {
  const key = `${index}/${count}/${previous_id ?? ''}/${next_id ?? ''}`;
  const shown = item.querySelector('.message__versions');
  if (shown instanceof HTMLElement && shown.dataset.key === key) return; // as it was: keep the focus where it is
  shown?.remove();
  if (count < 2) return;
  const who = item.querySelector('.message__author')?.textContent ?? '';
  const group = element('span', { class: 'message__versions', role: 'group', 'aria-label': `Version ${index + 1} of ${count} of the message from ${who}` });
  group.dataset.key = key;
  const previous = versionButton('previous', previous_id, '‹', 'Previous version');
  const next = versionButton('next', next_id, '›', 'Next version');
  group.append(previous, ' ', element('span', { class: 'message__version-position' }, `${index + 1}/${count}`), ' ', next);
  find(item, '.message__actions', HTMLElement).prepend(group);
}

/** @param {'previous' | 'next'} which @param {string | null} target @param {string} symbol @param {string} label */
function versionButton(which, target, symbol, label) {
  const button = element('button', { type: 'button', class: `link-button message__version message__version--${which}`, 'aria-label': label }, symbol);
  button.dataset.target = target ?? '';
  button.disabled = !target || state.streaming !== null;
  return button;
}

/** While a reply streams nothing else may start one or switch branches. @param {boolean} busy */
export function setTreeBusy(busy) {
  for (const button of ui.messageList.querySelectorAll(TREE_BUTTONS)) {
    if (!(button instanceof HTMLButtonElement)) continue;
    const item = button.closest('li.message');
    const usable = button.classList.contains('message__version')
      ? Boolean(button.dataset.target)
      : item instanceof HTMLElement && Boolean(item.dataset.messageId) && item.dataset.streaming !== 'true';
    button.disabled = busy || !usable;
  }
}

/** Whether a button of a message is one of those that wait while a reply streams. @param {Element} button */
export const waitsForReplies = (button) => button.matches(TREE_BUTTONS);

/**
 * Edit: the message's text becomes a box to change it, with Send and Cancel (Enter and Escape).
 * @param {HTMLElement} item @param {string} [text] what the box starts with (the message's text)
 */
export function openEditor(item, text) {
  const open = item.querySelector('.message__editor textarea');
  if (open instanceof HTMLTextAreaElement) {
    open.focus();
    return;
  }
  const shown = find(item, '.message__text', HTMLElement);
  const form = element('form', { class: 'message__editor' });
  const field = element('textarea', { class: 'message__editor-text', rows: '3', required: '', 'aria-label': 'Edit your message' });
  field.value = text ?? shown.textContent ?? '';
  const hint = element('p', { class: 'message__editor-hint' }, 'Sending makes a new version of this message; ‹ › shows the old one again.');
  const buttons = element('div', { class: 'message__editor-actions' });
  buttons.append(
    element('button', { type: 'submit', class: 'message__editor-send', 'aria-label': 'Send the edited message' }, 'Send'),
    element('button', { type: 'button', class: 'message__editor-cancel', 'aria-label': 'Cancel the edit' }, 'Cancel'),
  );
  form.append(field, hint, buttons);
  shown.hidden = true;
  find(item, '.message__actions', HTMLElement).hidden = true;
  shown.after(form);
  field.focus();
  field.setSelectionRange(field.value.length, field.value.length);
}

/** Closes the editor unchanged; the keyboard goes back to the Edit button. @param {HTMLElement} item */
export function closeEditor(item) {
  item.querySelector('.message__editor')?.remove();
  find(item, '.message__text', HTMLElement).hidden = false;
  find(item, '.message__actions', HTMLElement).hidden = false;
  const edit = item.querySelector('.message__edit');
  if (edit instanceof HTMLElement) edit.focus();
}

/** Takes `item` and every message after it off the list (a new version replaces them); returns them to put back. @param {HTMLElement} item */
export function takeFrom(item) {
  /** @type {Element[]} */
  const taken = [];
  for (let node = /** @type {Element | null} */ (item); node; node = node.nextElementSibling) taken.push(node);
  for (const node of taken) node.remove();
  return () => ui.messageList.append(...taken);
}

// The messages of the conversation as DOM: built from data, text only. Their buttons are answered
// by one listener on the list (app.js), so nothing here calls the service.
import { element, find, formatTime, scrollToBottom, ui } from './dom.js';
import { showTree, waitsForReplies } from './render-tree.js';
import { state } from './state.js';

/** @typedef {import('./api-types.js').MessageDraft} MessageDraft */

/** The `finish_reason`s of a reply cut short, flagged as such. */
const UNFINISHED = new Set(['cancelled', 'error', 'interrupted']);

/** What each button of a message does, for its label. */
const VERBS = new Map([
  ['message__play', 'Play aloud the message'],
  ['message__regenerate', 'Regenerate the reply'],
  ['message__edit', 'Edit the message'],
  ['message__delete', 'Delete the message'],
]);

/** @param {string} role */
function authorName(role) {
  if (role === 'user') return state.userId ?? 'You';
  if (role === 'assistant') return state.assistantName;
  return 'System';
}

/** One message of the conversation. @param {MessageDraft} message */
export function renderMessage(message) {
  const item = element('li', { class: `message message--${message.role}`, 'data-role': message.role });
  const head = element('div', { class: 'message__head' });
  const author = element('span', { class: 'message__author' }, authorName(message.role));
  const time = element('time', { class: 'message__time' });
  head.append(author, time);
  // dir=auto: a right-to-left message reads right to left (its direction from its first strong letter).
  const text = element('p', { class: 'message__text', dir: 'auto' });
  text.textContent = message.text;
  const actions = element('div', { class: 'message__actions' });
  const note = element('span', { class: 'message__note', role: 'status' });
  item.append(head, text, actions);

  if (message.role === 'assistant') {
    actions.append(element('button', { type: 'button', class: 'link-button message__play' }, 'Play aloud'));
    actions.append(element('button', { type: 'button', class: 'link-button message__regenerate' }, 'Regenerate'));
  }
  if (message.role === 'user') actions.append(element('button', { type: 'button', class: 'link-button message__edit', hidden: '' }, 'Edit'));
  actions.append(element('button', { type: 'button', class: 'link-button message__delete' }, 'Delete'), note);

  const finish = message.metadata?.finish_reason;
  if (typeof finish === 'string' && UNFINISHED.has(finish)) markUnfinished(item, finish);
  showTree(item, message);
  setMessageIdentity(item, message.message_id ?? null, message.created_at ?? null);
  // Still being written (a reload during a reply): chat.js goes on reading it.
  if (message.status === 'in_progress') markStreaming(item);
  return item;
}

/**
 * Gives a message its server id and time; until then its buttons are disabled.
 * @param {HTMLElement} item @param {string | null} id @param {string | null} createdAt
 */
export function setMessageIdentity(item, id, createdAt) {
  if (id) item.dataset.messageId = id;
  const time = find(item, '.message__time', HTMLTimeElement);
  if (createdAt) {
    time.dateTime = createdAt;
    time.textContent = formatTime(createdAt);
  }
  const who = item.querySelector('.message__author')?.textContent ?? '';
  for (const button of item.querySelectorAll('.message__actions > button')) {
    if (!(button instanceof HTMLButtonElement)) continue;
    // Edit and Regenerate also wait for the reply being read (render-tree.js).
    button.disabled = !id || (waitsForReplies(button) && state.streaming !== null);
    const verb = [...VERBS].find(([name]) => button.classList.contains(name))?.[1] ?? button.textContent;
    button.setAttribute('aria-label', `${verb} from ${who}${time.textContent ? `, ${time.textContent}` : ''}`);
  }
}

/** @param {HTMLElement} item @param {string} reason */
export function markUnfinished(item, reason) {
  if (item.dataset.finishReason) return; // flagged already
  item.dataset.finishReason = reason;
  const label = reason === 'cancelled' ? 'stopped' : reason === 'interrupted' ? 'interrupted' : 'incomplete';
  const flag = element('span', { class: 'message__flag' }, label);
  item.querySelector('.message__head')?.append(flag);
}

/**
 * The assistant's reply as it streams in, with the id `start` announced. Its text speaks for
 * itself as it grows; aria-busy lets readers that honour it wait for the end.
 * @param {string} messageId
 */
export function renderStreamingReply(messageId) {
  const item = renderMessage({ role: 'assistant', text: '', message_id: messageId, created_at: new Date().toISOString() });
  markStreaming(item);
  return { item, text: find(item, '.message__text', HTMLElement) };
}

/** A reply shown while it is written. @param {HTMLElement} item */
function markStreaming(item) {
  item.dataset.streaming = 'true';
  const text = find(item, '.message__text', HTMLElement);
  text.setAttribute('aria-live', 'polite');
  text.setAttribute('aria-busy', 'true');
  // It has its id already (`data-message-id`), but its buttons stay disabled until it is finished.
  setMessageIdentity(item, null, item.querySelector('time')?.dateTime || null);
}

/** The end of a streamed reply: no longer live, its buttons usable once it has an id. @param {HTMLElement} reply @param {string | null} messageId */
export function finishReply(reply, messageId) {
  delete reply.dataset.streaming;
  const text = reply.querySelector('.message__text');
  text?.removeAttribute('aria-busy');
  text?.removeAttribute('aria-live');
  setMessageIdentity(reply, messageId, reply.querySelector('time')?.dateTime || null);
}

/** An error shown in the conversation (not stored). @param {string} detail */
/**
 * An error in the conversation; after a failed reply, `retry` is the message Try again asks a new reply to.
 * @param {string} detail @param {string} [retry]
 */
export function showConversationError(detail, retry) {
  const item = element('li', { class: 'message message--error', role: 'alert' });
  item.append(element('p', { class: 'message__text' }, `Error: ${detail}`));
  if (retry) {
    item.dataset.retry = retry;
    item.append(element('button', { type: 'button', class: 'link-button message__retry' }, 'Try again'));
  }
  ui.messageList.append(item);
  updateEmptyNote();
  scrollToBottom();
}

export function updateEmptyNote() {
  ui.emptyNote.hidden = ui.messageList.childElementCount > 0 || state.loadingOlder;
}

export function clearMessages() {
  for (const audio of ui.messageList.querySelectorAll('audio')) {
    if (audio.src.startsWith('blob:')) URL.revokeObjectURL(audio.src);
  }
  ui.messageList.replaceChildren();
  updateEmptyNote();
}

/** Names the assistant's messages already shown once the persona is known. @param {string} name */
export function renameAssistant(name) {
  for (const author of ui.messageList.querySelectorAll('.message--assistant .message__author')) author.textContent = name;
}

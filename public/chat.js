// Sending a message, and the reply streamed into the conversation as it is written: a new one,
// or one already being written when the conversation was opened (a reload during a reply).
// A reply belongs to the service, not to the page's connection: leaving drops the connection
// and the reply goes on (opening the conversation again picks it up), while Stop asks the
// service to end it (reply-controls.js). A reply that failed can be asked for again (Try again).
import { updateTransferControls } from './transfer.js';
import { describeError, resumeReply, streamChat } from './api.js';
import { announce, find, nearBottom, scrollToBottom, ui } from './dom.js';
import { loadConversations, showTitle } from './conversation-list.js';
import { showTemporaryChoice } from './render-conversations.js';
import { codePoints, followReply } from './reply-follow.js';
import { finishReply, markUnfinished, renderMessage, renderStreamingReply, setMessageIdentity, showConversationError, updateEmptyNote } from './render-messages.js';
import { askToStop, beginReply, endReply } from './reply-controls.js';
import { queueSpeech, speakingChosen } from './speech.js';
import { setHash, state } from './state.js';
import { refreshTree } from './tree.js';
import { loadUsage } from './usage.js';

/** @typedef {import('./api-types.js').ChatRequest} ChatRequest */
/** @typedef {import('./api-types.js').StreamStart} StreamStart */
/** @typedef {import('./reply-follow.js').FollowEvent} FollowEvent */
/** @typedef {import('./state.js').ReplyInFlight} ReplyInFlight */
/** @typedef {{item: HTMLElement | null, text: HTMLElement | null}} ShownReply */
/**
 * A message that is not simply the next one: an edit (`parentId`, the parent of the message
 * edited; null for the first message), or a reply asked for again (`regenerate`, a reply's id; no
 * text). `undo` puts back what the page took away for it when the service refuses it.
 * @typedef {{parentId?: string | null, regenerate?: string, undo?: () => void}} TurnOptions
 */

const UNFINISHED = /** @type {Record<string, string>} the ends of a reply that did not finish by itself, as announced */ ({ cancelled: 'Reply stopped', interrupted: 'Reply interrupted: the service stopped while writing it' });

/**
 * Sends a message (or asks again for a reply) and streams the reply in.
 * @param {string} text @param {TurnOptions} [options]
 */
export async function sendMessage(text, { parentId, regenerate, undo } = {}) {
  if (!state.userId || state.streaming) return;
  const current = beginReply(null);
  const view = state.view;

  const userItem = regenerate ? null : renderMessage({ role: 'user', text, created_at: new Date().toISOString() });
  if (userItem) {
    userItem.classList.add('is-pending');
    ui.messageList.append(userItem);
  }
  updateEmptyNote();
  scrollToBottom();

  /** @type {ShownReply} */
  const shown = { item: null, text: null };
  /** @type {ChatRequest} */
  const request = { user_id: state.userId, ...(state.conversationId ? { conversation_id: state.conversationId } : {}) };
  if (regenerate) request.regenerate = regenerate;
  else Object.assign(request, { text }, parentId !== undefined ? { parent_id: parentId } : {});
  // The first message of a new conversation starts it temporary when asked.
  const temporary = !state.conversationId && ui.temporary.checked;
  if (temporary) request.temporary = true;
  if (speakingChosen()) request.speech = { format: 'mp3' };
  /** @param {StreamStart} data */
  const onStart = (data) => {
    if (!state.conversationId) {
      state.conversationId = data.conversation_id;
      state.temporary = temporary;
      showTemporaryChoice();
      updateTransferControls();
      setHash(data.conversation_id);
      state.olderCursor = null; // a new conversation: nothing older to load
      void loadConversations();
    }
    current.question = regenerate ?? data.user_message_id ?? undefined;
    if (userItem) {
      userItem.classList.remove('is-pending');
      setMessageIdentity(userItem, data.user_message_id, null);
    }
    ({ item: shown.item, text: shown.text } = renderStreamingReply(data.message_id));
    ui.messageList.append(shown.item);
    scrollToBottom();
  };
  const { signal } = current.controller;
  try {
    await showReply(followReply(streamChat(request, signal), { userId: state.userId, signal }), current, shown, onStart);
  } catch (error) {
    userItem?.classList.remove('is-pending');
    if (!signal.aborted && !shown.item && !userItem?.dataset.messageId) {
      // Refused before anything was stored (a 400, 404, 409...): give the text back to edit.
      userItem?.remove();
      if (undo) undo();
      else if (!ui.text.value) ui.text.value = text;
      showConversationError(describeError(error));
    } else {
      showBroken(error, current, shown, view);
    }
  } finally {
    endReply(current);
    void loadUsage();
    if (view === state.view) {
      void loadConversations();
      void refreshTree(); // its parent, and "‹ 2/2 ›" after an edit or a regenerated reply
    }
  }
}

/**
 * Goes on reading a reply the page shows as still being written (`data-streaming`, from a
 * reload or from opening its conversation): from the code points shown to its end.
 * @param {HTMLElement} item
 */
export async function followShownReply(item) {
  const messageId = item.dataset.messageId;
  const userId = state.userId;
  if (!messageId || !userId || (state.streaming && !state.streaming.controller.signal.aborted)) return;
  const current = beginReply(messageId);
  const view = state.view;
  const above = item.previousElementSibling;
  if (above instanceof HTMLElement && above.dataset.role === 'user') current.question = above.dataset.messageId;
  /** @type {ShownReply} */
  const shown = { item, text: find(item, '.message__text', HTMLElement) };
  const held = codePoints(shown.text?.textContent ?? '');
  const { signal } = current.controller;
  announce(`${state.assistantName} is replying`);
  try {
    await showReply(followReply(resumeReply(messageId, userId, held, signal), { userId, signal, messageId, held }), current, shown);
  } catch (error) {
    showBroken(error, current, shown, view);
  } finally {
    endReply(current);
  }
}

/**
 * Shows a reply's events as they come, to its `done` or `error`; a stream that ends otherwise throws.
 * @param {AsyncIterable<FollowEvent>} events @param {ReplyInFlight} current @param {ShownReply} shown
 * @param {(data: StreamStart) => void} [onStart]
 */
async function showReply(events, current, shown, onStart) {
  const view = state.view;
  let reconnected = false; // the connection was lost, and the page said so: the next event says it is back
  for await (const { event, data } of events) {
    if (reconnected && event !== 'reconnecting') announce(`Reconnected: ${state.assistantName} is replying`);
    reconnected = event === 'reconnecting';
    if (event === 'start') {
      current.messageId = data.message_id;
      onStart?.(data);
      announce(`${state.assistantName} is replying`);
      if (current.stopping) void askToStop(current); // Stop was pressed before the reply had a name
    } else if (event === 'delta' && shown.text) {
      const follow = nearBottom();
      shown.text.append(data.text);
      if (follow) scrollToBottom();
    } else if (event === 'audio' && shown.item) {
      if (speakingChosen() && !current.stopping) queueSpeech(data, shown.item);
    } else if (event === 'title') {
      showTitle(data); // the first turn names its conversation: the sidebar entry shows it at once
    } else if (event === 'reconnecting') {
      announce('Connection lost: reconnecting…');
    } else if (event === 'done') {
      if (!shown.item || !shown.text) return;
      shown.text.textContent = data.response;
      finishReply(shown.item, data.message_id);
      if (Object.hasOwn(UNFINISHED, data.finish_reason)) markUnfinished(shown.item, data.finish_reason);
      if (!data.response) shown.item.remove(); // stopped before its first word: nothing was stored
      if (view === state.view) announce(UNFINISHED[data.finish_reason] ?? `${state.assistantName} replied`);
      return;
    } else if (event === 'error') {
      if (shown.item) {
        finishReply(shown.item, shown.item.dataset.messageId ?? null);
        markUnfinished(shown.item, 'error');
        if (!shown.text?.textContent) shown.item.remove(); // nothing was said: nothing was stored
      }
      showConversationError(data.detail ?? 'the reply failed', current.question);
      return;
    }
  }
  throw new Error('the reply stream ended early');
}

/**
 * A reply whose stream broke for good, or was dropped: by leaving the conversation (nothing to
 * show: the reply goes on in the service), or by a Stop the service did not answer in time.
 * @param {unknown} error @param {ReplyInFlight} current @param {ShownReply} shown @param {number} view
 */
function showBroken(error, current, shown, view) {
  if (view !== state.view) return;
  const { item, text } = shown;
  if (item) finishReply(item, item.dataset.messageId ?? null);
  if (current.controller.signal.aborted) {
    if (item && text?.textContent) markUnfinished(item, 'cancelled');
    else item?.remove();
    announce('Reply stopped');
    return;
  }
  if (item) markUnfinished(item, 'error');
  showConversationError(describeError(error));
}

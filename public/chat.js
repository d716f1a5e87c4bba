// Sending a message, and the reply streamed into the conversation as it is written.
import { describeError, streamChat } from './api.js';
import { announce, nearBottom, scrollToBottom, ui } from './dom.js';
import { loadConversations } from './conversation-list.js';
import { finishReply, markUnfinished, renderMessage, renderStreamingReply, setMessageIdentity, showConversationError, updateEmptyNote } from './render-messages.js';
import { setHash, state } from './state.js';

/** @typedef {import('./api-types.js').ChatRequest} ChatRequest */

/** @param {string} text */
export async function sendMessage(text) {
  if (!state.userId || state.streaming) return;
  const controller = new AbortController();
  state.streaming = controller;
  setStreaming(true);
  const view = state.view;

  const userItem = renderMessage({ role: 'user', text, created_at: new Date().toISOString() });
  userItem.classList.add('is-pending');
  ui.messageList.append(userItem);
  updateEmptyNote();
  scrollToBottom();

  /** @type {HTMLElement | null} */
  let reply = null;
  /** @type {HTMLElement | null} */
  let replyText = null;
  let finished = false;
  /** @type {ChatRequest} */
  const request = { text, user_id: state.userId, ...(state.conversationId ? { conversation_id: state.conversationId } : {}) };
  try {
    for await (const { event, data } of streamChat(request, controller.signal)) {
      if (event === 'start') {
        if (!state.conversationId) {
          state.conversationId = data.conversation_id;
          setHash(data.conversation_id);
          state.olderCursor = null; // a new conversation: nothing older to load
          void loadConversations();
        }
        userItem.classList.remove('is-pending');
        setMessageIdentity(userItem, data.user_message_id, null);
        ({ item: reply, text: replyText } = renderStreamingReply(data.message_id));
        ui.messageList.append(reply);
        scrollToBottom();
        announce(`${state.assistantName} is replying`);
      } else if (event === 'delta' && replyText) {
        const follow = nearBottom();
        replyText.append(data.text);
        if (follow) scrollToBottom();
      } else if (event === 'done' && reply && replyText) {
        replyText.textContent = data.response;
        finishReply(reply, data.message_id);
        finished = true;
        if (view === state.view) announce(`${state.assistantName} replied`);
      } else if (event === 'error') {
        if (reply) {
          finishReply(reply, reply.dataset.messageId ?? null);
          markUnfinished(reply, 'error');
          if (!replyText?.textContent) reply.remove(); // nothing was said: nothing was stored
        }
        finished = true;
        showConversationError(data.detail ?? 'the reply failed');
      }
    }
    if (!finished) throw new Error('the reply stream ended early');
  } catch (error) {
    if (controller.signal.aborted) {
      if (reply) {
        finishReply(reply, reply.dataset.messageId ?? null);
        if (replyText?.textContent) markUnfinished(reply, 'cancelled');
        else reply.remove();
      }
      userItem.classList.remove('is-pending');
      if (view === state.view) announce('Reply stopped');
    } else if (!reply && !userItem.dataset.messageId) {
      // Refused before anything was stored (a 400, 404, 409...): give the text back to edit.
      userItem.remove();
      if (!ui.text.value) ui.text.value = text;
      showConversationError(describeError(error));
    } else {
      if (reply) {
        finishReply(reply, reply.dataset.messageId ?? null);
        markUnfinished(reply, 'error');
      }
      showConversationError(describeError(error));
    }
  } finally {
    state.streaming = null;
    setStreaming(false);
    if (view === state.view) void loadConversations();
  }
}

/** The composer while a reply streams: Send waits, Stop shows. @param {boolean} busy */
export function setStreaming(busy) {
  ui.send.disabled = busy || !state.userId;
  ui.stop.hidden = !busy;
  ui.composer.setAttribute('aria-busy', String(busy));
  if (!busy && document.activeElement === ui.stop) ui.text.focus();
}

// The composer while a reply is shown: Send waits and Stop shows; Stop asks the service to end
// the reply, and leaving the conversation only stops reading it (the reply goes on in the service).
import { describeError, stopReply as requestStop } from './api.js';
import { ui } from './dom.js';
import { showConversationError } from './render-messages.js';
import { setTreeBusy } from './render-tree.js';
import { stopSpeaking } from './speech.js';
import { state } from './state.js';

/** @typedef {import('./state.js').ReplyInFlight} ReplyInFlight */

/** How long a stopped reply may take to end its stream before the page drops the connection. */
const STOP_WAIT_MS = 5000;

/** @param {string | null} messageId @returns {ReplyInFlight} */
export function beginReply(messageId) {
  const current = { controller: new AbortController(), messageId, stopping: false };
  state.streaming = current;
  setStreaming(true);
  return current;
}

/** @param {ReplyInFlight} current */
export function endReply(current) {
  if (state.streaming !== current) return; // another reply is shown by now
  state.streaming = null;
  setStreaming(false);
}

/** Stop (the button, or Escape): the service ends the reply, and its stream ends with `done`. */
export function stopReply() {
  const current = state.streaming;
  if (!current || current.stopping) return;
  current.stopping = true;
  // The keyboard goes to the message box now: a disabled button loses it (to the page's body).
  if (document.activeElement === ui.stop) ui.text.focus();
  ui.stop.disabled = true;
  stopSpeaking();
  if (current.messageId) void askToStop(current);
}

/** @param {ReplyInFlight} current */
export async function askToStop(current) {
  if (!current.messageId || !state.userId) return;
  try {
    await requestStop(current.messageId, state.userId);
    setTimeout(() => {
      if (state.streaming === current) current.controller.abort();
    }, STOP_WAIT_MS);
  } catch (error) {
    // Not stopped in the service (unreachable, say): at least stop reading it here.
    current.controller.abort();
    showConversationError(`could not stop the reply: ${describeError(error)}`);
  }
}

/** Leaving the conversation: stop reading (and speaking) the reply; it goes on in the service. */
export function leaveReply() {
  stopSpeaking();
  state.streaming?.controller.abort();
}

/** The composer while a reply streams: Send waits, Stop shows. @param {boolean} busy */
export function setStreaming(busy) {
  ui.send.disabled = busy || !state.userId;
  ui.stop.hidden = !busy;
  ui.stop.disabled = false;
  ui.composer.setAttribute('aria-busy', String(busy));
  setTreeBusy(busy);
  if (!busy && document.activeElement === ui.stop) ui.text.focus();
}

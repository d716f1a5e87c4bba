// The demo chat page: plain JavaScript modules, no framework, no build step. It uses only the
// service's public API, through URLs relative to the page, so it works on any host and port
// (and under a path prefix). Text from the server is only ever set as textContent.
import { readEventStream } from './sse.js';

const PAGE_SIZE = 30;
const CONVERSATION_PAGE_SIZE = 20;
const USER_KEY = 'assistant-demo.user_id';
const HASH_KEY = 'conversation';

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

const ui = {
  userForm: /** @type {HTMLFormElement} */ (byId('user-form')),
  userName: /** @type {HTMLInputElement} */ (byId('user-name')),
  newConversation: /** @type {HTMLButtonElement} */ (byId('new-conversation')),
  conversationsStatus: byId('conversations-status'),
  conversationList: byId('conversation-list'),
  moreConversations: /** @type {HTMLButtonElement} */ (byId('more-conversations')),
  chatTitle: byId('chat-title'),
  chatMeta: byId('chat-meta'),
  scroller: byId('message-scroller'),
  loadOlder: /** @type {HTMLButtonElement} */ (byId('load-older')),
  messageList: byId('message-list'),
  emptyNote: byId('empty-note'),
  chatStatus: byId('chat-status'),
  composer: /** @type {HTMLFormElement} */ (byId('composer')),
  text: /** @type {HTMLTextAreaElement} */ (byId('composer-text')),
  send: /** @type {HTMLButtonElement} */ (byId('send')),
  stop: /** @type {HTMLButtonElement} */ (byId('stop')),
  persona: byId('persona-heading').parentElement,
  personaName: byId('persona-name'),
  personaDescription: byId('persona-description'),
  personaTraits: byId('persona-traits'),
  personaDescriptors: byId('persona-descriptors'),
  personaStyle: byId('persona-style'),
  graphStatus: byId('graph-status'),
  graphRefresh: /** @type {HTMLButtonElement} */ (byId('graph-refresh')),
};

const state = {
  /** @type {string | null} */ userId: null,
  /** @type {string | null} */ conversationId: null,
  /** Changes whenever another conversation is shown, so late answers for the old one are dropped. */
  view: 0,
  /** `next_cursor` of the newest-first pages: where older messages continue; null when none are left. */
  /** @type {string | null} */ olderCursor: null,
  loadingOlder: false,
  /** @type {string | null} */ conversationCursor: null,
  /** @type {Map<string, {title: string | null, message_count: number, created_at: string, last_message_at: string | null}>} */
  conversations: new Map(),
  /** @type {AbortController | null} */ streaming: null,
  assistantName: 'Assistant',
};

// ---------------------------------------------------------------------------------------------
// The API

class ApiError extends Error {
  /** @param {number} status @param {string} detail */
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

/** The JSON body of a response; an error status throws its `detail`. @param {Response} response */
async function readJson(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: the detail falls back to the status line
  }
  if (!response.ok) {
    const detail = body && typeof body.detail === 'string' ? body.detail : `${response.status} ${response.statusText}`.trim();
    throw new ApiError(response.status, detail);
  }
  return body;
}

/** @param {string} method @param {string} path @param {unknown} [body] */
async function api(method, path, body) {
  /** @type {RequestInit} */
  const init = { method, headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.headers = { ...init.headers, 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  return readJson(await fetch(path, init));
}

/** @param {unknown} error */
const describe = (error) =>
  error instanceof ApiError ? error.message : error instanceof TypeError ? 'could not reach the service' : String(error);

// ---------------------------------------------------------------------------------------------
// Small helpers

/** @param {string} tag @param {Record<string, string>} [attributes] @param {string} [text] */
function element(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** @param {string | null | undefined} iso */
function formatTime(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  const sameDay = date.toDateString() === new Date().toDateString();
  return sameDay
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}

/** @param {string} message */
function announce(message) {
  ui.chatStatus.textContent = '';
  // A fresh text node, a moment later, so the same words twice are announced twice.
  requestAnimationFrame(() => {
    ui.chatStatus.textContent = message;
  });
}

const nearBottom = () => ui.scroller.scrollHeight - ui.scroller.scrollTop - ui.scroller.clientHeight < 48;
const scrollToBottom = () => {
  ui.scroller.scrollTop = ui.scroller.scrollHeight;
};

/** A user id as the contract allows: 1..128 code points, no control characters. @param {string} value */
function userIdProblem(value) {
  const length = [...value].length;
  if (length === 0) return 'Enter a user name.';
  if (length > 128) return 'A user name has at most 128 characters.';
  if (/\p{Cc}/u.test(value)) return 'A user name cannot contain control characters.';
  return '';
}

function storedUser() {
  try {
    return localStorage.getItem(USER_KEY);
  } catch {
    return null; // storage disabled: the name is simply not remembered
  }
}

/** @param {string} userId */
function storeUser(userId) {
  try {
    localStorage.setItem(USER_KEY, userId);
  } catch {
    // storage disabled
  }
}

function conversationFromHash() {
  const value = new URLSearchParams(location.hash.slice(1)).get(HASH_KEY);
  return value || null;
}

/** @param {string | null} conversationId */
function setHash(conversationId) {
  const url = new URL(location.href);
  url.hash = conversationId ? new URLSearchParams({ [HASH_KEY]: conversationId }).toString() : '';
  history.replaceState(null, '', conversationId ? url : url.pathname + url.search);
}

// ---------------------------------------------------------------------------------------------
// Messages

/**
 * One message of the conversation.
 * @param {{message_id?: string, role: string, text: string, created_at?: string | null, metadata?: Record<string, unknown>}} message
 */
function renderMessage(message) {
  const item = element('li', { class: `message message--${message.role}`, 'data-role': message.role });
  const head = element('div', { class: 'message__head' });
  const author = element('span', { class: 'message__author' }, authorName(message.role));
  const time = element('time', { class: 'message__time' });
  head.append(author, time);
  const text = element('p', { class: 'message__text' });
  text.textContent = message.text;
  const actions = element('div', { class: 'message__actions' });
  const note = element('span', { class: 'message__note', role: 'status' });
  item.append(head, text, actions);

  if (message.role === 'assistant') {
    const play = element('button', { type: 'button', class: 'link-button message__play' }, 'Play aloud');
    play.addEventListener('click', () => playMessage(item, /** @type {HTMLButtonElement} */ (play), note));
    actions.append(play);
  }
  const remove = element('button', { type: 'button', class: 'link-button message__delete' }, 'Delete');
  remove.addEventListener('click', () => deleteMessage(item, /** @type {HTMLButtonElement} */ (remove), note));
  actions.append(remove, note);

  const finish = message.metadata?.finish_reason;
  if (finish === 'cancelled' || finish === 'error') markUnfinished(item, finish);
  setMessageIdentity(item, message.message_id ?? null, message.created_at ?? null);
  return item;
}

/** @param {string} role */
function authorName(role) {
  if (role === 'user') return state.userId ?? 'You';
  if (role === 'assistant') return state.assistantName;
  return 'System';
}

/** Gives a message its server id and time; until then its buttons are disabled. */
function setMessageIdentity(/** @type {HTMLElement} */ item, /** @type {string | null} */ id, /** @type {string | null} */ createdAt) {
  if (id) item.dataset.messageId = id;
  const time = /** @type {HTMLTimeElement} */ (item.querySelector('.message__time'));
  if (createdAt) {
    time.dateTime = createdAt;
    time.textContent = formatTime(createdAt);
  }
  const who = item.querySelector('.message__author')?.textContent ?? '';
  for (const button of item.querySelectorAll('.message__actions button')) {
    /** @type {HTMLButtonElement} */ (button).disabled = !id;
    const verb = button.classList.contains('message__play') ? 'Play aloud the message' : 'Delete the message';
    button.setAttribute('aria-label', `${verb} from ${who}${time.textContent ? `, ${time.textContent}` : ''}`);
  }
}

/** @param {HTMLElement} item @param {string} reason */
function markUnfinished(item, reason) {
  item.dataset.finishReason = reason;
  const flag = element('span', { class: 'message__flag' }, reason === 'cancelled' ? 'stopped' : 'incomplete');
  item.querySelector('.message__head')?.append(flag);
}

/** An error shown in the conversation (not stored). @param {string} detail */
function showConversationError(detail) {
  const item = element('li', { class: 'message message--error', role: 'alert' });
  item.append(element('p', { class: 'message__text' }, `Error: ${detail}`));
  ui.messageList.append(item);
  updateEmptyNote();
  scrollToBottom();
}

function updateEmptyNote() {
  ui.emptyNote.hidden = ui.messageList.childElementCount > 0 || state.loadingOlder;
}

function clearMessages() {
  for (const audio of ui.messageList.querySelectorAll('audio')) {
    if (audio.src.startsWith('blob:')) URL.revokeObjectURL(audio.src);
  }
  ui.messageList.replaceChildren();
  updateEmptyNote();
}

/**
 * The next page of older messages (the first page when nothing is shown yet), put above the
 * ones shown while the part of the conversation in view stays where it was.
 */
async function loadOlderMessages() {
  const conversationId = state.conversationId;
  if (!conversationId || !state.userId || state.loadingOlder) return;
  const first = ui.messageList.querySelector('[data-message-id]') === null && state.olderCursor === null;
  if (!first && state.olderCursor === null) return;
  const view = state.view;
  state.loadingOlder = true;
  ui.loadOlder.disabled = true;
  updateEmptyNote();
  ui.scroller.setAttribute('aria-busy', 'true');
  /** @type {Record<string, unknown>} */
  const body = { user_id: state.userId, conversation_id: conversationId, order: 'desc', limit: PAGE_SIZE };
  if (state.olderCursor) body.cursor = state.olderCursor;
  try {
    const page = await api('POST', 'api/chat/loadMessages', body);
    if (view !== state.view) return;
    const fromBottom = ui.scroller.scrollHeight - ui.scroller.scrollTop;
    const fragment = document.createDocumentFragment();
    for (const message of [...page.messages].reverse()) {
      if (ui.messageList.querySelector(`[data-message-id="${CSS.escape(message.message_id)}"]`)) continue;
      fragment.append(renderMessage(message));
    }
    ui.messageList.prepend(fragment);
    state.olderCursor = page.next_cursor;
    if (first) scrollToBottom();
    else ui.scroller.scrollTop = ui.scroller.scrollHeight - fromBottom;
    if (page.messages.length > 0 && !first) announce(`${page.messages.length} older messages loaded`);
  } catch (error) {
    if (view !== state.view) return;
    showConversationError(`could not load messages: ${describe(error)}`);
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
async function deleteMessage(item, button, note) {
  const messageId = item.dataset.messageId;
  if (!messageId || !state.userId || !state.conversationId) return;
  button.disabled = true;
  note.textContent = '';
  try {
    await api('DELETE', 'api/chat/deleteMessages', {
      user_id: state.userId,
      conversation_id: state.conversationId,
      message_ids: [messageId],
    });
    // Keep the keyboard where it was: on the next message's delete button, or the message box.
    const neighbour = item.nextElementSibling ?? item.previousElementSibling;
    const hadFocus = item.contains(document.activeElement);
    for (const audio of item.querySelectorAll('audio')) URL.revokeObjectURL(audio.src);
    item.remove();
    updateEmptyNote();
    if (hadFocus) {
      const next = /** @type {HTMLElement | null} */ (neighbour?.querySelector('.message__delete') ?? null);
      (next ?? ui.text).focus();
    }
    announce('Message deleted');
    void loadConversations();
  } catch (error) {
    button.disabled = false;
    note.textContent = `Not deleted: ${describe(error)}`;
    note.classList.add('is-error');
  }
}

/** Speech for a stored message, fetched first so that a failure shows its JSON detail. */
async function playMessage(/** @type {HTMLElement} */ item, /** @type {HTMLButtonElement} */ button, /** @type {HTMLElement} */ note) {
  const messageId = item.dataset.messageId;
  if (!messageId || !state.userId) return;
  let audio = /** @type {HTMLAudioElement | null} */ (item.querySelector('audio'));
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
    const response = await fetch(`api/tts?${new URLSearchParams({ message_id: messageId, user_id: state.userId })}`, { headers: { accept: 'audio/*' } });
    if (!response.ok) await readJson(response); // throws the detail
    const blob = await response.blob();
    audio = element('audio', { controls: '', class: 'message__audio', preload: 'auto' });
    audio.setAttribute('aria-label', `Speech of the message from ${state.assistantName}`);
    audio.src = URL.createObjectURL(blob);
    item.append(audio);
    button.textContent = 'Play aloud';
    await audio.play().catch(() => {});
  } catch (error) {
    button.textContent = 'Play aloud (unavailable)';
    note.textContent = `Speech: ${describe(error)}`;
    note.classList.add('is-error');
  } finally {
    button.disabled = false;
  }
}

// ---------------------------------------------------------------------------------------------
// Sending, with the streamed reply

/** @param {string} text */
async function sendMessage(text) {
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
  const body = { text, user_id: state.userId, ...(state.conversationId ? { conversation_id: state.conversationId } : {}) };
  try {
    const response = await fetch('v1/chat/stream', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      await readJson(response);
      throw new ApiError(response.status, 'the service did not answer with an event stream');
    }
    for await (const { event, data } of readEventStream(/** @type {ReadableStream<Uint8Array>} */ (response.body), controller.signal)) {
      const payload = JSON.parse(data);
      if (event === 'start') {
        if (!state.conversationId) {
          state.conversationId = payload.conversation_id;
          setHash(payload.conversation_id);
          state.olderCursor = null; // a new conversation: nothing older to load
          void loadConversations();
        }
        userItem.classList.remove('is-pending');
        setMessageIdentity(userItem, payload.user_message_id, null);
        reply = renderMessage({ role: 'assistant', text: '', message_id: payload.message_id, created_at: new Date().toISOString() });
        reply.dataset.streaming = 'true';
        replyText = /** @type {HTMLElement} */ (reply.querySelector('.message__text'));
        // The reply speaks for itself as it grows; aria-busy lets readers that honour it wait for the end.
        replyText.setAttribute('aria-live', 'polite');
        replyText.setAttribute('aria-busy', 'true');
        setMessageIdentity(reply, null, new Date().toISOString());
        ui.messageList.append(reply);
        scrollToBottom();
        announce(`${state.assistantName} is replying`);
      } else if (event === 'delta' && replyText) {
        const follow = nearBottom();
        replyText.append(payload.text);
        if (follow) scrollToBottom();
      } else if (event === 'done' && reply && replyText) {
        replyText.textContent = payload.response;
        finishReply(reply, payload.message_id);
        finished = true;
        if (view === state.view) announce(`${state.assistantName} replied`);
      } else if (event === 'error') {
        if (reply) {
          finishReply(reply, reply.dataset.messageId ?? null);
          markUnfinished(reply, 'error');
          if (!replyText?.textContent) reply.remove(); // nothing was said: nothing was stored
        }
        finished = true;
        showConversationError(payload.detail ?? 'the reply failed');
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
      showConversationError(describe(error));
    } else {
      if (reply) {
        finishReply(reply, reply.dataset.messageId ?? null);
        markUnfinished(reply, 'error');
      }
      showConversationError(describe(error));
    }
  } finally {
    state.streaming = null;
    setStreaming(false);
    if (view === state.view) void loadConversations();
  }
}

/** @param {HTMLElement} reply @param {string | null} messageId */
function finishReply(reply, messageId) {
  delete reply.dataset.streaming;
  const text = reply.querySelector('.message__text');
  text?.removeAttribute('aria-busy');
  text?.removeAttribute('aria-live');
  setMessageIdentity(reply, messageId, reply.querySelector('time')?.dateTime || null);
}

/** @param {boolean} busy */
function setStreaming(busy) {
  ui.send.disabled = busy || !state.userId;
  ui.stop.hidden = !busy;
  ui.composer.setAttribute('aria-busy', String(busy));
  if (!busy && document.activeElement === ui.stop) ui.text.focus();
}

// ---------------------------------------------------------------------------------------------
// Conversations

/** @param {{append?: boolean}} [options] */
async function loadConversations({ append = false } = {}) {
  const userId = state.userId;
  if (!userId) return;
  const params = new URLSearchParams({ user_id: userId, limit: String(CONVERSATION_PAGE_SIZE) });
  if (append && state.conversationCursor) params.set('cursor', state.conversationCursor);
  if (!append && ui.conversationList.childElementCount === 0) ui.conversationsStatus.textContent = 'Loading conversations…';
  try {
    const page = await api('GET', `api/chat/conversations?${params}`);
    if (userId !== state.userId) return;
    if (!append) {
      state.conversations.clear();
      ui.conversationList.replaceChildren();
    }
    for (const conversation of page.conversations) {
      state.conversations.set(conversation.conversation_id, conversation);
      ui.conversationList.append(renderConversation(conversation));
    }
    state.conversationCursor = page.next_cursor;
    ui.moreConversations.hidden = page.next_cursor === null;
    ui.conversationsStatus.textContent = state.conversations.size === 0 ? 'No conversations yet: write a message to start one.' : '';
    markCurrentConversation();
  } catch (error) {
    if (userId !== state.userId) return;
    ui.conversationsStatus.textContent = `Could not load conversations: ${describe(error)}`;
  }
}

/** @param {{conversation_id: string, title: string | null, message_count: number, last_message_at: string | null, created_at: string}} conversation */
function renderConversation(conversation) {
  const item = element('li');
  const button = element('button', { type: 'button', class: 'conversation', 'data-conversation-id': conversation.conversation_id });
  const title = element('span', { class: 'conversation__title' }, conversation.title?.trim() || 'Untitled conversation');
  const count = conversation.message_count === 1 ? '1 message' : `${conversation.message_count} messages`;
  const when = formatTime(conversation.last_message_at ?? conversation.created_at);
  const meta = element('span', { class: 'conversation__meta' }, when ? `${count} · ${when}` : count);
  button.append(title, meta);
  button.addEventListener('click', () => openConversation(conversation.conversation_id));
  item.append(button);
  return item;
}

function markCurrentConversation() {
  for (const button of ui.conversationList.querySelectorAll('button.conversation')) {
    const current = /** @type {HTMLElement} */ (button).dataset.conversationId === state.conversationId;
    if (current) button.setAttribute('aria-current', 'true');
    else button.removeAttribute('aria-current');
  }
  const summary = state.conversationId ? state.conversations.get(state.conversationId) : undefined;
  ui.chatTitle.textContent = state.conversationId ? summary?.title?.trim() || 'Conversation' : 'New conversation';
  ui.chatMeta.textContent = summary
    ? `${summary.message_count === 1 ? '1 message' : `${summary.message_count} messages`}, started ${formatTime(summary.created_at)}`
    : state.conversationId
      ? ''
      : 'Write a message below to start a conversation.';
}

/** Shows a conversation (or, with null, an empty new one). @param {string | null} conversationId */
async function openConversation(conversationId) {
  state.streaming?.abort();
  state.view += 1;
  state.conversationId = conversationId;
  state.olderCursor = null;
  state.loadingOlder = false;
  ui.loadOlder.hidden = true;
  setHash(conversationId);
  clearMessages();
  markCurrentConversation();
  if (conversationId) await loadOlderMessages();
}

// ---------------------------------------------------------------------------------------------
// The user

/** @param {string} userId */
async function useName(userId) {
  const changed = userId !== state.userId;
  state.userId = userId;
  ui.userName.value = userId;
  storeUser(userId);
  ui.text.disabled = false;
  ui.newConversation.disabled = false;
  setStreaming(false);
  if (changed) {
    state.conversationCursor = null;
    state.conversations.clear();
    ui.conversationList.replaceChildren();
  }
  const fromHash = conversationFromHash();
  await Promise.all([
    loadConversations(),
    changed || fromHash !== state.conversationId ? openConversation(changed && !fromHash ? null : fromHash) : Promise.resolve(),
  ]);
}

// ---------------------------------------------------------------------------------------------
// Persona and graph database

async function loadPersona() {
  try {
    const persona = await api('GET', 'api/ai/traits');
    state.assistantName = persona.name;
    ui.personaName.textContent = persona.name;
    ui.personaDescription.textContent = persona.description;
    ui.personaTraits.replaceChildren();
    for (const [trait, score] of Object.entries(persona.traits ?? {})) {
      const row = element('div', { class: 'trait' });
      const id = `trait-${trait}`;
      const term = element('dt', { id }, trait.charAt(0).toUpperCase() + trait.slice(1));
      const value = Number(score);
      const meter = element('meter', { min: '0', max: '1', value: String(value), 'aria-labelledby': id });
      const definition = element('dd');
      definition.append(meter, element('span', { class: 'trait__value' }, value.toFixed(2)));
      row.append(term, definition);
      ui.personaTraits.append(row);
    }
    ui.personaDescriptors.replaceChildren(...(persona.descriptors ?? []).map((/** @type {string} */ d) => element('li', {}, d)));
    ui.personaStyle.textContent = persona.speaking_style ? `Speaking style: ${persona.speaking_style}` : '';
    for (const author of ui.messageList.querySelectorAll('.message--assistant .message__author')) author.textContent = persona.name;
  } catch (error) {
    ui.personaName.textContent = 'unknown';
    ui.personaDescription.textContent = `Could not load the persona: ${describe(error)}`;
  } finally {
    ui.persona.removeAttribute('aria-busy');
  }
}

async function loadGraphStatus() {
  ui.graphRefresh.disabled = true;
  ui.graphStatus.dataset.state = 'unknown';
  ui.graphStatus.textContent = 'Checking…';
  try {
    const response = await fetch('api/status/graphdb', { headers: { accept: 'application/json' } });
    /** @type {any} */
    let status = null;
    try {
      status = await response.json();
    } catch {
      // handled below
    }
    if (status?.connected === true) {
      ui.graphStatus.dataset.state = 'connected';
      const latency = typeof status.latency_ms === 'number' ? `, ${status.latency_ms} ms` : '';
      ui.graphStatus.textContent = `Connected (${status.server_version ?? 'unknown version'}${latency})`;
    } else if (status?.status === 'disabled') {
      ui.graphStatus.dataset.state = 'disabled';
      ui.graphStatus.textContent = `Disabled: ${status.detail ?? 'not configured'}`;
    } else {
      ui.graphStatus.dataset.state = 'error';
      ui.graphStatus.textContent = `Error: ${status?.detail ?? `${response.status} ${response.statusText}`}`;
    }
  } catch (error) {
    ui.graphStatus.dataset.state = 'error';
    ui.graphStatus.textContent = `Error: ${describe(error)}`;
  } finally {
    ui.graphRefresh.disabled = false;
  }
}

// ---------------------------------------------------------------------------------------------
// Wiring

ui.userForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const userId = ui.userName.value.trim();
  const problem = userIdProblem(userId);
  ui.userName.setCustomValidity(problem);
  if (problem) {
    ui.userName.reportValidity();
    return;
  }
  if (userId !== state.userId) setHash(null); // another user's conversation is not this one's
  void useName(userId).then(() => ui.text.focus());
});
ui.userName.addEventListener('input', () => ui.userName.setCustomValidity(''));

ui.composer.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = ui.text.value;
  if (!text.trim() || state.streaming || !state.userId) return;
  ui.text.value = '';
  void sendMessage(text);
});

ui.text.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    ui.composer.requestSubmit();
  }
});

ui.stop.addEventListener('click', () => state.streaming?.abort());
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && state.streaming) state.streaming.abort();
});

ui.newConversation.addEventListener('click', () => {
  void openConversation(null);
  ui.text.focus();
});

ui.moreConversations.addEventListener('click', () => void loadConversations({ append: true }));
ui.loadOlder.addEventListener('click', () => void loadOlderMessages());
ui.scroller.addEventListener(
  'scroll',
  () => {
    if (ui.scroller.scrollTop < 80 && state.olderCursor !== null) void loadOlderMessages();
  },
  { passive: true },
);
ui.graphRefresh.addEventListener('click', () => void loadGraphStatus());

window.addEventListener('hashchange', () => {
  const fromHash = conversationFromHash();
  if (state.userId && fromHash !== state.conversationId) void openConversation(fromHash);
});

void loadPersona();
void loadGraphStatus();
markCurrentConversation();
updateEmptyNote();
const remembered = storedUser();
if (remembered && !userIdProblem(remembered)) {
  void useName(remembered);
} else {
  ui.userName.focus();
}

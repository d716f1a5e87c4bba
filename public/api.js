// The service's API as the page uses it: every request the page makes is here. URLs are relative
// to the page, so it works on any host and port (and under a path prefix). A refused request
// throws an ApiError whose message is the JSON error body's `detail`. Each carries the access
// token when one was given (credentials.js).
import { authHeaders } from './credentials.js';
import { noteRateLimits } from './rate-limits.js';
import { readEventStream } from './sse.js';

/** @typedef {import('./api-types.js').ChatRequest} ChatRequest */
/** @typedef {import('./api-types.js').ChatStreamEvent} ChatStreamEvent */
/** @typedef {import('./api-types.js').ConversationPage} ConversationPage */
/** @typedef {import('./api-types.js').ConversationChanged} ConversationChanged */
/** @typedef {import('./api-types.js').ConversationChanges} ConversationChanges */
/** @typedef {import('./api-types.js').ConversationDeleted} ConversationDeleted */
/** @typedef {import('./api-types.js').DeleteMessagesRequest} DeleteMessagesRequest */
/** @typedef {import('./api-types.js').DeleteResult} DeleteResult */
/** @typedef {import('./api-types.js').GraphStatus} GraphStatus */
/** @typedef {import('./api-types.js').LoadMessagesRequest} LoadMessagesRequest */
/** @typedef {import('./api-types.js').MessagePage} MessagePage */
/** @typedef {import('./api-types.js').Persona} Persona */
/** @typedef {import('./api-types.js').SearchPage} SearchPage */
/** @typedef {import('./api-types.js').StopResult} StopResult */
/** @typedef {import('./api-types.js').SwitchBranchRequest} SwitchBranchRequest */
/** @typedef {import('./api-types.js').SwitchBranchResult} SwitchBranchResult */
/** @typedef {import('./api-types.js').Usage} Usage */

export class ApiError extends Error {
  /** @param {number} status @param {string} detail */
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

/** @param {unknown} body */
const detailOf = (body) =>
  typeof body === 'object' && body !== null && 'detail' in body && typeof body.detail === 'string' ? body.detail : null;

/** The JSON body of a response; an error status throws its `detail`. @param {Response} response */
async function readJson(response) {
  /** @type {unknown} */
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: the detail falls back to the status line
  }
  if (!response.ok) {
    throw new ApiError(response.status, detailOf(body) ?? `${response.status} ${response.statusText}`.trim());
  }
  return body;
}

/**
 * A JSON request; the caller names the shape of the answer (the service's, see api-types.js).
 * @param {string} method @param {string} path @param {unknown} [body]
 */
async function requestJson(method, path, body) {
  /** @type {RequestInit} */
  const init = { method, headers: { accept: 'application/json', ...authHeaders() } };
  if (body !== undefined) {
    init.headers = { ...init.headers, 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  return readJson(await fetch(path, init));
}

/** What to show for a failed call. @param {unknown} error */
export const describeError = (error) =>
  error instanceof ApiError ? error.message : error instanceof TypeError ? 'could not reach the service' : String(error);

/** A page of a conversation's messages. @param {LoadMessagesRequest} request */
export async function loadMessages(request) {
  return /** @type {MessagePage} */ (await requestJson('POST', 'api/chat/loadMessages', request));
}

/** @param {DeleteMessagesRequest} request */
export async function deleteMessages(request) {
  return /** @type {DeleteResult} */ (await requestJson('DELETE', 'api/chat/deleteMessages', request));
}

/**
 * Makes the branch through `message_id` the active one: the head becomes the newest message
 * under it (what "‹ 2/3 ›" needs, given the sibling's id).
 * @param {SwitchBranchRequest} request
 */
export async function switchBranch(request) {
  return /** @type {SwitchBranchResult} */ (await requestJson('POST', 'api/chat/switchBranch', request));
}

/**
 * A page of the user's conversations, pinned first, then most recently active; with `archived`,
 * the archived ones only (otherwise they are left out).
 * @param {{user_id: string, limit: number, cursor?: string | null, archived?: boolean}} query
 */
export async function listConversations({ user_id, limit, cursor, archived = false }) {
  const params = new URLSearchParams({ user_id, limit: String(limit) });
  if (cursor) params.set('cursor', cursor);
  if (archived) params.set('archived', 'true');
  return /** @type {ConversationPage} */ (await requestJson('GET', `api/chat/conversations?${params}`));
}

/** Today's usage of a user (UTC), as every instance of the service counted it. @param {string} userId */
export async function getUsage(userId) {
  return /** @type {Usage} */ (await requestJson('GET', `v1/usage?${new URLSearchParams({ user_id: userId })}`));
}

/** @param {string} id */
const conversationPath = (id) => `api/chat/conversations/${encodeURIComponent(id)}`;

/**
 * Renames (a null title hands it back to the service), pins or archives a conversation.
 * @param {string} conversationId @param {ConversationChanges} changes
 */
export async function updateConversation(conversationId, changes) {
  return /** @type {ConversationChanged} */ (await requestJson('PATCH', conversationPath(conversationId), changes));
}

/** One conversation of the user's, listed or not. @param {string} conversationId @param {string} userId */
export async function getConversation(conversationId, userId) {
  const query = new URLSearchParams({ user_id: userId });
  return /** @type {ConversationChanged} */ (await requestJson('GET', `${conversationPath(conversationId)}?${query}`));
}

/** A conversation with all its messages. @param {string} conversationId @param {string} userId */
export async function deleteConversation(conversationId, userId) {
  const query = new URLSearchParams({ user_id: userId });
  return /** @type {ConversationDeleted} */ (await requestJson('DELETE', `${conversationPath(conversationId)}?${query}`));
}

/**
 * A page of the user's messages matching `q` (web-search syntax), most relevant first.
 * @param {{user_id: string, q: string, limit: number, cursor?: string | null}} query
 */
export async function searchMessages({ user_id, q, limit, cursor }) {
  const params = new URLSearchParams({ user_id, q, limit: String(limit) });
  if (cursor) params.set('cursor', cursor);
  return /** @type {SearchPage} */ (await requestJson('GET', `api/chat/search?${params}`));
}

export async function getPersona() {
  return /** @type {Persona} */ (await requestJson('GET', 'api/ai/traits'));
}

/**
 * The graph database's status: connected, or disabled (not configured). Unreachable (the 503,
 * whose body has the same shape) throws its detail like any other error.
 * @returns {Promise<GraphStatus>}
 */
export async function getGraphStatus() {
  const response = await fetch('api/status/graphdb', { headers: { accept: 'application/json', ...authHeaders() } });
  /** @type {unknown} */
  let status = null;
  try {
    status = await response.json();
  } catch {
    // not JSON: the detail is the status line
  }
  if (typeof status === 'object' && status !== null) {
    if ('connected' in status && status.connected === true) return /** @type {GraphStatus} */ (status);
    if ('status' in status && status.status === 'disabled') return /** @type {GraphStatus} */ (status);
  }
  throw new ApiError(response.status, detailOf(status) ?? `${response.status} ${response.statusText}`);
}

/**
 * Speech for a stored message, fetched whole (rather than given to an <audio> element as a URL)
 * so that a failure can show its JSON detail. The service speaks a message only to its owner.
 * @param {string} messageId @param {string} userId
 */
export async function fetchSpeech(messageId, userId) {
  const response = await fetch(`api/tts?${new URLSearchParams({ message_id: messageId, user_id: userId })}`, { headers: { accept: 'audio/*', ...authHeaders() } });
  noteRateLimits(response);
  if (!response.ok) await readJson(response); // throws the detail
  return response.blob();
}

const CHAT_EVENTS = new Set(['start', 'delta', 'audio', 'title', 'done', 'error']);

/**
 * Sends a message and yields the events of the streamed reply, each `data:` parsed. A refusal
 * before the stream begins (400, 404, 409...) throws its detail; `signal` aborts the request
 * (the reply goes on in the service: stopReply stops it).
 * @param {ChatRequest} request
 * @param {AbortSignal} signal
 * @returns {AsyncGenerator<ChatStreamEvent, void, undefined>}
 */
export async function* streamChat(request, signal) {
  const response = await fetch('v1/chat/stream', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...authHeaders() },
    body: JSON.stringify(request),
    signal,
  });
  yield* chatEvents(response, signal);
}

/**
 * The events of a reply from the position `after` (code points the page holds) on: `start`, one
 * `delta` with what was written since, the live deltas, then `done` or `error`. A finished reply
 * gives the same and ends at once; an unknown one throws (404).
 * @param {string} messageId @param {string} userId @param {number} after @param {AbortSignal} signal
 * @returns {AsyncGenerator<ChatStreamEvent, void, undefined>}
 */
export async function* resumeReply(messageId, userId, after, signal) {
  const query = new URLSearchParams({ user_id: userId, after: String(after) });
  const response = await fetch(`v1/chat/stream/${encodeURIComponent(messageId)}?${query}`, {
    headers: { accept: 'text/event-stream', ...authHeaders() },
    signal,
  });
  yield* chatEvents(response, signal);
}

/**
 * Stops a reply in progress, whoever is reading it: every stream of it then ends with `done`,
 * `finish_reason` "cancelled". A finished reply is left as it is.
 * @param {string} messageId @param {string} userId
 */
export async function stopReply(messageId, userId) {
  return /** @type {StopResult} */ (await requestJson('POST', `v1/chat/stream/${encodeURIComponent(messageId)}/stop`, { user_id: userId }));
}

/**
 * The events of a chat event stream. Events the page does not know are skipped.
 * @param {Response} response @param {AbortSignal} signal
 * @returns {AsyncGenerator<ChatStreamEvent, void, undefined>}
 */
async function* chatEvents(response, signal) {
  noteRateLimits(response);
  if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) {
    await readJson(response);
    throw new ApiError(response.status, 'the service did not answer with an event stream');
  }
  for await (const { event, data, id } of readEventStream(response.body, signal)) {
    const payload = JSON.parse(data); // the contract: every data line is one JSON object
    if (CHAT_EVENTS.has(event)) yield /** @type {ChatStreamEvent} */ ({ event, id, data: payload });
  }
}

// The JSON shapes the page reads from the service, as `/openapi.json` describes them. Types only:
// the other modules name them with `import('./api-types.js').Name` in JSDoc, so the browser
// never loads this file; `npm run typecheck` checks the page's code against them.

/** @typedef {'user' | 'assistant' | 'system'} Role */

/**
 * A stored message.
 * @typedef {object} Message
 * @property {string} message_id
 * @property {string} conversation_id
 * @property {string} user_id
 * @property {Role} role
 * @property {string} text
 * @property {string} created_at ISO 8601 UTC
 * @property {Record<string, unknown>} metadata a cut-short reply has `finish_reason` "cancelled",
 *   "error" or "interrupted"
 * @property {'in_progress' | 'completed'} status a reply still being written is "in_progress"
 */

/**
 * What the page needs to show a message: a stored one, or one not stored yet (no id).
 * @typedef {Pick<Message, 'role' | 'text'> & Partial<Pick<Message, 'message_id' | 'created_at' | 'metadata' | 'status'>>} MessageDraft
 */

/**
 * `POST api/chat/loadMessages`.
 * @typedef {object} MessagePage
 * @property {'ok'} status
 * @property {string} conversation_id
 * @property {Message[]} messages
 * @property {string | null} next_cursor null when there is nothing more in that order
 */

/**
 * @typedef {object} LoadMessagesRequest
 * @property {string} user_id
 * @property {string} conversation_id
 * @property {'asc' | 'desc'} order
 * @property {number} limit
 * @property {string} [cursor]
 */

/**
 * @typedef {object} DeleteMessagesRequest
 * @property {string} user_id
 * @property {string} conversation_id
 * @property {string[]} message_ids
 */

/** @typedef {{status: 'ok', deleted: number}} DeleteResult */

/**
 * One entry of `GET api/chat/conversations`.
 * @typedef {object} ConversationSummary
 * @property {string} conversation_id
 * @property {string | null} title
 * @property {string} created_at
 * @property {string | null} last_message_at
 * @property {number} message_count
 */

/**
 * @typedef {object} ConversationPage
 * @property {'ok'} status
 * @property {ConversationSummary[]} conversations
 * @property {string | null} next_cursor
 */

/**
 * `GET api/ai/traits`: trait scores are in 0..1.
 * @typedef {object} Persona
 * @property {'ok'} status
 * @property {string} name
 * @property {string} description
 * @property {Record<string, number>} traits
 * @property {string[]} descriptors
 * @property {string} speaking_style
 */

/**
 * `GET api/status/graphdb` when it answers (its 503 `{status: "error", connected: false, detail}`
 * is an ApiError for the page).
 * @typedef {{status: 'ok', connected: true, server_version: string, latency_ms: number}
 *   | {status: 'disabled', connected: false, detail: string}} GraphStatus
 */

/**
 * `POST v1/chat/stream` (the body of `POST v1/chat` too).
 * @typedef {object} ChatRequest
 * @property {string} text
 * @property {string} user_id
 * @property {string} [conversation_id] none starts a new conversation
 * @property {{format: 'mp3' | 'wav'}} [speech] speak the reply: `audio` events between the deltas
 */

/** @typedef {{conversation_id: string, user_message_id: string, message_id: string}} StreamStart */
/** @typedef {{text: string}} StreamDelta */
/**
 * @typedef {object} StreamDone
 * @property {string} response the whole reply: the deltas joined
 * @property {'ok'} status
 * @property {string} conversation_id
 * @property {string} message_id
 * @property {string} user_message_id
 * @property {string} finish_reason
 */
/** @typedef {{detail: string, status: 'error'}} StreamError */
/**
 * A spoken sentence of the reply (only when the request asked for `speech`): a whole audio file.
 * @typedef {{index: number, text: string, format: string, audio: string}} StreamAudio
 */

/**
 * One event of the chat stream, its `data:` parsed. `id` is the event's SSE id (the code points
 * of the reply held after it), or the previous one, or "" when the service sent none (`audio`
 * carries none of its own).
 * @typedef {{event: 'start', id: string, data: StreamStart}
 *   | {event: 'delta', id: string, data: StreamDelta}
 *   | {event: 'audio', id: string, data: StreamAudio}
 *   | {event: 'done', id: string, data: StreamDone}
 *   | {event: 'error', id: string, data: StreamError}} ChatStreamEvent
 */

/**
 * `POST v1/chat/stream/{message_id}/stop`: the reply as stored, or null when it was stopped
 * before its first piece (and so removed).
 * @typedef {{status: 'ok', message: Message | null}} StopResult
 */

export {};

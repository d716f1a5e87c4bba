// The JSON shapes the page reads from the service, named for its JSDoc: each is taken from
// openapi-types.d.ts, which `npm run api-types` generates from the service's OpenAPI document
// (what /openapi.json serves), so none is written here by hand. Types only: the other modules
// name them with `import('./api-types.js').Name` in JSDoc, so the browser never loads this file
// (nor openapi-types.d.ts); `npm run typecheck` checks the page's code against them.

/** @typedef {import('./openapi-types').paths} Paths */
/** @typedef {import('./openapi-types').components['schemas']} Schemas */

/**
 * The JSON body of the 200 answer of `method path`.
 * @template {keyof Paths} P
 * @template {keyof Paths[P]} M
 * @typedef {Paths[P][M] extends {responses: {200: {content: {'application/json': infer B}}}} ? B : never} Answer
 */

/**
 * The JSON body a request of `method path` sends.
 * @template {keyof Paths} P
 * @template {keyof Paths[P]} M
 * @typedef {Paths[P][M] extends {requestBody?: {content: {'application/json': infer B}}} ? B : never} RequestBody
 */

/** @typedef {Schemas['Message']} Message */
/** A message of a branch listing, with its `siblings` (the "‹ 2/3 ›" control). @typedef {Schemas['BranchMessage']} BranchMessage */
/** @typedef {Schemas['Siblings']} Siblings */
/** @typedef {Schemas['Conversation']} ConversationSummary */
/** @typedef {Answer<'/api/chat/loadMessages', 'post'>} MessagePage */
/** @typedef {Answer<'/api/chat/deleteMessages', 'delete'>} DeleteResult */
/** @typedef {Answer<'/api/chat/conversations', 'get'>} ConversationPage */
/** @typedef {Answer<'/api/chat/conversations/{conversation_id}', 'patch'>} ConversationChanged */
/** @typedef {RequestBody<'/api/chat/conversations/{conversation_id}', 'patch'>} ConversationChanges */
/** @typedef {Answer<'/api/chat/conversations/{conversation_id}', 'delete'>} ConversationDeleted */
/** What an import stored, and what it could not. @typedef {Answer<'/api/users/{user_id}/import', 'post'>} ImportReport */
/** @typedef {Answer<'/api/ai/traits', 'get'>} Persona */
/** @typedef {Answer<'/api/chat/search', 'get'>} SearchPage */
/** @typedef {Schemas['SearchResult']} SearchResult */
/** @typedef {Schemas['StoppedReply']} StopResult */
/** A user's usage per day (`GET v1/usage`). @typedef {Answer<'/v1/usage', 'get'>} Usage */
/** @typedef {RequestBody<'/api/chat/loadMessages', 'post'>} LoadMessagesRequest */
/** @typedef {RequestBody<'/api/chat/deleteMessages', 'delete'>} DeleteMessagesRequest */
/** @typedef {RequestBody<'/api/chat/switchBranch', 'post'>} SwitchBranchRequest */
/** @typedef {Answer<'/api/chat/switchBranch', 'post'>} SwitchBranchResult */
/** `POST v1/chat/stream` (the body of `POST v1/chat` too, with `speech`). @typedef {RequestBody<'/v1/chat/stream', 'post'>} ChatRequest */

/**
 * `GET api/status/graphdb` when it answers 200 (its 503, `status: "error"`, is an ApiError for
 * the page).
 * @typedef {Exclude<Answer<'/api/status/graphdb', 'get'>, {status: 'error'}>} GraphStatus
 */

/** @typedef {Schemas['StreamStart']} StreamStart */
/** @typedef {Schemas['StreamDelta']} StreamDelta */
/** @typedef {Schemas['StreamAudio']} StreamAudio */
/** @typedef {Schemas['StreamTitle']} StreamTitle */
/** @typedef {Schemas['StreamDone']} StreamDone */
/** @typedef {Schemas['StreamError']} StreamError */

/**
 * One event of the chat stream, its `data:` parsed. `id` is the event's SSE id (the code points
 * of the reply held after it), or the previous one, or "" when the service sent none (`audio`
 * carries none of its own).
 * @typedef {{event: 'start', id: string, data: StreamStart}
 *   | {event: 'delta', id: string, data: StreamDelta}
 *   | {event: 'audio', id: string, data: StreamAudio}
 *   | {event: 'title', id: string, data: StreamTitle}
 *   | {event: 'done', id: string, data: StreamDone}
 *   | {event: 'error', id: string, data: StreamError}} ChatStreamEvent
 */

/**
 * What the page needs to show a message: a stored one (from a branch listing, with its place in
 * the tree), or one not stored yet (no id).
 * @typedef {Pick<Message, 'role' | 'text'> & Partial<Pick<BranchMessage, 'message_id' | 'created_at' | 'metadata' | 'status' | 'parent_id' | 'siblings'>>} MessageDraft
 */

export {};

import { z } from 'zod';
import { TITLE_SOURCES } from '../../domain/conversation.js';
import { MESSAGE_STATUSES, ROLES } from '../../domain/message.js';

/**
 * Response bodies, as zod schemas: the presenters are typed by them and the OpenAPI document
 * is generated from them, so the two cannot drift.
 */
const timestamp = z.iso.datetime().meta({ description: 'ISO 8601 UTC with milliseconds', example: '2026-11-22T10:15:30.123Z' });
const ok = z.literal('ok');

export const errorResponse = z
  .object({
    detail: z.string().meta({ example: 'text: must be a non-empty string' }),
    status: z.literal('error'),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Error' });

export const messageResponse = z
  .object({
    message_id: z.string(),
    conversation_id: z.string(),
    user_id: z.string(),
    role: z.enum(ROLES),
    text: z.string(),
    created_at: timestamp,
    metadata: z.record(z.string(), z.unknown()),
    status: z.enum(MESSAGE_STATUSES).meta({ description: '`in_progress` while a reply is being written (its text so far), else `completed`' }),
    parent_id: z.string().nullable().meta({ description: 'the message it follows in the conversation tree; null for a first message' }),
  })
  .meta({ id: 'Message' });

export const siblingsResponse = z
  .object({
    count: z.number().int().min(1).meta({ description: 'how many messages share its parent (itself included)' }),
    index: z.number().int().min(0).meta({ description: 'its place among them in creation order, from 0' }),
    previous_id: z.string().nullable(),
    next_id: z.string().nullable(),
  })
  .meta({ id: 'Siblings', description: 'The messages that share its parent, in creation order: what a "‹ 2/3 ›" control shows' });

export const branchMessageResponse = messageResponse.extend({ siblings: siblingsResponse }).meta({ id: 'BranchMessage' });

export const chatResponse = z
  .object({
    response: z.string(),
    status: ok,
    conversation_id: z.string(),
    message_id: z.string().meta({ description: "the reply's id" }),
    user_message_id: z.string(),
    created_at: timestamp,
    finish_reason: z.string().meta({ description: 'why the reply ended: the model\'s own reason (`stop`, `length`...), or `cancelled`, `error`, `interrupted`' }),
  })
  .meta({ id: 'ChatResponse' });

export const stoppedReplyResponse = z
  .object({ status: ok, message: messageResponse.nullable().meta({ description: 'the reply as stored; null when it was stopped before its first piece (then removed)' }) })
  .meta({ id: 'StoppedReply' });

export const savedMessageResponse = z.object({ status: ok, message: messageResponse });

export const messageListResponse = z.object({
  status: ok,
  conversation_id: z.string(),
  messages: z.array(z.union([branchMessageResponse, messageResponse])).meta({ description: 'in branch listings each message carries `siblings`; with `branch: "all"` they do not' }),
  next_cursor: z.string().nullable().meta({ description: 'opaque; null when there is nothing more in that order. It keeps to the branch it was made for, even if the head moves' }),
  head_id: z.string().nullable().meta({ description: 'the last message of the active branch' }),
});

export const switchedBranchResponse = z.object({ status: ok, conversation_id: z.string(), head_id: z.string().nullable() });

export const deletedResponse = z.object({ status: ok, deleted: z.number().int().min(0) });

export const sessionResponse = z
  .object({
    session_id: z.string(),
    conversation_id: z.string(),
    user_id: z.string(),
    title: z.string().nullable(),
    started_at: timestamp.nullable(),
    ended_at: timestamp.nullable(),
    metadata: z.record(z.string(), z.unknown()),
    message_count: z.number().int().min(0),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Session' });

export const savedSessionResponse = z.object({ status: ok, session: sessionResponse, messages_saved: z.number().int().min(0) });

export const conversationResponse = z
  .object({
    conversation_id: z.string(),
    user_id: z.string(),
    title: z.string().nullable(),
    title_source: z.enum(TITLE_SOURCES).nullable().meta({ description: '`user` (set by its user; never replaced), `generated` (by the language model), `first_message`, or null while it has none' }),
    created_at: timestamp,
    last_message_at: timestamp.nullable(),
    message_count: z.number().int().min(0).meta({ description: 'every branch counted' }),
    head_id: z.string().nullable().meta({ description: 'the last message of the active branch' }),
    pinned: z.boolean(),
    archived: z.boolean(),
    temporary: z.boolean().meta({ description: 'never listed, searched or exported; deleted TEMPORARY_TTL_HOURS after its last activity' }),
    expires_at: timestamp.nullable().meta({ description: 'when it will be deleted (a temporary conversation, or RETENTION_DAYS); null otherwise' }),
  })
  .meta({ id: 'Conversation' });

export const conversationItemResponse = z.object({ status: ok, conversation: conversationResponse });

export const deletedConversationsResponse = z.object({
  status: ok,
  deleted: z.object({ conversations: z.number().int().min(0), messages: z.number().int().min(0), sessions: z.number().int().min(0) }),
});

export const erasedUserResponse = z.object({
  status: ok,
  deleted: z.object({
    users: z.number().int().min(0),
    conversations: z.number().int().min(0),
    messages: z.number().int().min(0),
    sessions: z.number().int().min(0),
  }),
});

export const conversationListResponse = z.object({
  status: ok,
  conversations: z.array(conversationResponse),
  next_cursor: z.string().nullable(),
});

export const searchResponse = z.object({
  status: ok,
  results: z.array(
    z
      .object({
        message: messageResponse,
        conversation_id: z.string(),
        conversation_title: z.string().nullable(),
        snippet: z.string().meta({ description: 'Plain text (never HTML) around the best match: at most 200 code points; `…` marks text left out' }),
        highlights: z
          .array(z.object({ start: z.number().int().min(0), end: z.number().int().min(0) }))
          .meta({ description: 'The matched spans of `snippet`, as code-point offsets (`start` inclusive, `end` exclusive), in order, not overlapping' }),
      })
      .meta({ id: 'SearchResult' }),
  ),
  next_cursor: z.string().nullable().meta({ description: 'opaque; null when there are no more results' }),
});

export const healthResponse = z.object({ status: ok, version: z.string(), uptime_s: z.number().int().min(0) });

const check = z.object({ status: z.enum(['ok', 'error', 'disabled']), required: z.boolean(), detail: z.string().optional() });
export const readinessResponse = z.object({
  status: z.enum(['ok', 'error']),
  detail: z.string().optional(),
  checks: z.record(z.string(), check).meta({
    description:
      'one entry per dependency: `database`, `graph_database`, `language_model` and `identity_provider` ' +
      '(the issuer\'s keys with AUTH_MODE=oidc, else `disabled`); `required` ones (READY_REQUIRED) decide the status',
  }),
});

export const graphStatusResponse = z.union([
  z.object({ status: ok, connected: z.literal(true), server_version: z.string(), latency_ms: z.number() }),
  z.object({ status: z.literal('disabled'), connected: z.literal(false), detail: z.string() }),
  z.object({ status: z.literal('error'), connected: z.literal(false), detail: z.string() }),
]);

const score = z.number().min(0).max(1);
export const personaResponse = z.object({
  status: ok,
  name: z.string(),
  description: z.string(),
  traits: z.object({ openness: score, conscientiousness: score, extraversion: score, agreeableness: score, neuroticism: score }),
  descriptors: z.array(z.string()),
  speaking_style: z.string(),
});

export const voicesResponse = z.object({
  status: ok,
  default_voice: z.string(),
  voices: z.array(z.object({ id: z.string(), name: z.string(), language: z.string() })),
});

/** OpenAI's error object, as POST /v1/audio/speech answers (with our `detail` and `status` too). */
export const openAiErrorResponse = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.enum(['invalid_request_error', 'server_error', 'requests', 'tokens']).meta({ description: 'on a 429, the limit reached: `requests` or `tokens` (as OpenAI\'s)' }),
      param: z.string().nullable().meta({ description: 'the request field at fault, named as OpenAI names it' }),
      code: z.string().nullable(),
    }),
    detail: z.string().meta({ description: 'the same as error.message' }),
    status: z.literal('error'),
  })
  .meta({ id: 'OpenAiError' });

/** GET /api/chat/conversations/{conversation_id}/export (json), and each line of a user's ndjson export. */
export const exportedConversationResponse = z
  .object({ conversation: conversationResponse, messages: z.array(messageResponse) })
  .meta({ id: 'ExportedConversation', description: 'A conversation and every message of it (every branch, `parent_id` kept), in the conversation order' });

const counts = z.object({ created: z.number().int().min(0), skipped: z.number().int().min(0) });

/** POST /api/users/{user_id}/import */
export const importResponse = z.object({
  status: ok,
  conversations: counts.meta({ description: '`skipped`: already imported (their missing messages, if any, were added)' }),
  messages: counts.meta({ description: '`skipped`: already stored' }),
  errors: z
    .array(z.object({ conversation: z.string().nullable().meta({ description: "The conversation's id (or title) in the file, when known" }), detail: z.string() }))
    .meta({ description: 'Conversations that could not be read or stored; the rest were imported' }),
});

import { z } from 'zod';
import { clientIdProblem, ID_RULE, MAX_ID_LENGTH } from '../../domain/ids.js';
import { ROLES } from '../../domain/message.js';
import { assertMetadata } from '../../domain/metadata.js';
import { MAX_QUERY_LENGTH } from '../../domain/search-query.js';
import { atMostCodePoints, hasUnstorableCharacters, UNSTORABLE_RULE } from '../../domain/text.js';
import { isStorableInstant } from '../../domain/instants.js';

/** Request schemas: one per endpoint, the single source of validation (and, later, of the OpenAPI document). */

const NON_EMPTY = 'must be a non-empty string';
const TIMESTAMP = 'must be an ISO 8601 timestamp with a time zone, e.g. 2026-11-22T10:15:30.123Z';

/** A message for a wrong value, and "is required" when the field is absent. */
export const says = (message: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message),
});

/** Adds the domain's complaint about a value, if it has one. */
const domainRule = (problemOf: (value: string) => string | null) => (value: string, ctx: z.RefinementCtx) => {
  const problem = problemOf(value);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
};

/** Text every store can keep (no NUL, no lone surrogate): any free text a client sends. */
export const storable = domainRule((value) => (hasUnstorableCharacters(value) ? UNSTORABLE_RULE : null));

export const clientId = () =>
  z
    .string(says(ID_RULE))
    .superRefine(domainRule(clientIdProblem))
    .meta({ description: `An id: 1..${MAX_ID_LENGTH} Unicode code points, no control characters, no lone surrogates`, minLength: 1, maxLength: MAX_ID_LENGTH * 2 });

/** Optional ids accept null as "not given", as many clients send it. */
const optionalId = () =>
  clientId()
    .nullish()
    .transform((v) => v ?? undefined);

/** `parent_id`: a message's id; null, no parent (the message starts a tree of its own, as an edit of a conversation's first message does); absent, the default placement. */
const parentId = (description: string) => clientId().nullable().optional().meta({ description });

export const text = (max: number) =>
  z
    .string(says(NON_EMPTY))
    .refine((s) => s.trim() !== '', NON_EMPTY)
    .refine((s) => atMostCodePoints(s, max), `must be at most ${max} characters`)
    .superRefine(storable)
    .meta({ description: `Non-empty after trimming; at most ${max} Unicode code points; no NUL character or lone surrogate`, minLength: 1 });

/** Instants every store keeps (isStorableInstant): years 0001 to 9999 in UTC. */
const IN_RANGE = 'must lie between the years 0001 and 9999 in UTC';

const timestamp = () =>
  z.iso
    .datetime({ offset: true, ...says(TIMESTAMP) })
    .transform((s) => new Date(s))
    .refine((date) => isStorableInstant(date.getTime()), IN_RANGE);

const metadata = () =>
  z.record(z.string(), z.unknown(), says('must be a JSON object')).superRefine((value, ctx) => {
    try {
      assertMetadata(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as { reason?: string }).reason ?? 'is invalid' });
    }
  });

const role = () => z.enum(ROLES, says(`must be one of ${ROLES.join(', ')}`));
const integer = (min: number, max: number) =>
  z.number(says(`must be an integer from ${min} to ${max}`)).int(`must be an integer from ${min} to ${max}`).min(min, `must be an integer from ${min} to ${max}`).max(max, `must be an integer from ${min} to ${max}`);
const body = <T extends z.ZodRawShape>(shape: T) => z.object(shape, { error: 'must be a JSON object' });

/**
 * A position in a reply, in code points, as a query value or header: a whole number from 0. One
 * beyond any reply (past 2^53, where numbers stop being exact) stands for "past the end" as any
 * position past the end does.
 */
export const position = () =>
  z
    .string(says('must be a whole number of code points from 0'))
    .regex(/^\d{1,100}$/, 'must be a whole number of code points from 0')
    .transform((digits) => Math.min(Number(digits), Number.MAX_SAFE_INTEGER));

export interface SchemaLimits {
  maxTextLength: number;
}

export function requestSchemas({ maxTextLength }: SchemaLimits) {
  const messageFields = {
    message_id: optionalId(),
    role: role(),
    text: text(maxTextLength),
    created_at: timestamp().optional().meta({ description: 'kept as sent; absent: the time the service stores it, never before the message it follows' }),
    metadata: metadata().optional(),
    parent_id: parentId('the message it follows (a branch starts there); null: none, a tree of its own beside the first message; absent: the one before it in the request, the first one the head'),
  };
  return {
    chat: body({
      text: text(maxTextLength).optional(),
      user_id: clientId(),
      conversation_id: optionalId(),
      message_id: optionalId(),
      parent_id: parentId('the message the question follows: an edit names the parent of the message it replaces (null for the first message: the question then has no parent); absent: the head'),
      regenerate: optionalId().meta({ description: 'instead of `text`: answer again this user message, or the one this reply answers (a reply saved or imported without one: the nearest user message above it); a sibling of the earlier replies; a system message: 400' }),
      temporary: z.boolean(says('must be true or false')).optional().meta({ description: 'a conversation this request starts is temporary: never listed, searched or exported, deleted TEMPORARY_TTL_HOURS after its last activity' }),
    })
      // Named even when other fields are wrong too, as a field's own "is required" is.
      .refine((value) => value.text !== undefined || value.regenerate !== undefined, {
        path: ['text'],
        message: 'is required',
        when: (payload) => typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value),
      })
      .superRefine((value, ctx) => {
      if (value.text !== undefined && value.regenerate !== undefined) ctx.addIssue({ code: 'custom', path: ['regenerate'], message: 'must not be given together with text' });
      if (value.regenerate !== undefined && value.conversation_id === undefined) ctx.addIssue({ code: 'custom', path: ['conversation_id'], message: 'is required with regenerate' });
      if (value.regenerate !== undefined && value.parent_id != null) ctx.addIssue({ code: 'custom', path: ['parent_id'], message: 'must not be given together with regenerate' });
    }),
    saveMessage: body({
      user_id: clientId(),
      conversation_id: clientId(),
      ...messageFields,
      temporary: z.boolean(says('must be true or false')).optional().meta({ description: 'a conversation this message starts is temporary' }),
    }),
    loadMessages: body({
      user_id: clientId(),
      conversation_id: clientId(),
      limit: integer(1, 500).default(50),
      order: z.enum(['asc', 'desc'], says('must be "asc" or "desc"')).default('asc'),
      cursor: z.string(says('must be a string')).nullish().transform((v) => v ?? undefined),
      leaf_id: optionalId().meta({ description: 'list the branch that ends at this message instead of the active one (without switching to it)' }),
      branch: z.literal('all', says('must be "all" when given')).optional().meta({ description: '"all": every message of every branch, in the conversation order (no `siblings`)' }),
    }).superRefine((value, ctx) => {
      if (value.branch === 'all' && value.leaf_id !== undefined) ctx.addIssue({ code: 'custom', path: ['leaf_id'], message: 'must not be given together with branch: "all"' });
    }),
    switchBranch: body({ user_id: clientId(), conversation_id: clientId(), message_id: clientId() }),
    deleteMessages: body({
      user_id: clientId(),
      conversation_id: clientId(),
      message_ids: z.array(clientId(), says('must be an array of message ids')).max(1000, 'must list at most 1000 ids').optional(),
      all: z.boolean(says('must be true or false')).optional(),
      descendants: z.boolean(says('must be true or false')).optional().meta({ description: "true: each listed message's whole subtree is deleted too" }),
    }),
    saveSession: body({
      user_id: clientId(),
      conversation_id: clientId(),
      session_id: optionalId(),
      title: z
        .string(says('must be a string or null'))
        .refine((s) => atMostCodePoints(s, 500), 'must be at most 500 characters')
        .superRefine(storable)
        .nullable()
        .optional()
        .meta({ description: "kept as sent; the conversation shows it (trimmed, at most 200 code points) as its title unless its user or the model named it, and one of white space only not at all" }),
      started_at: timestamp().nullable().optional(),
      ended_at: timestamp().nullable().optional(),
      metadata: metadata().optional(),
      messages: z.array(body(messageFields), says('must be an array of messages')).max(1000, 'must hold at most 1000 messages').optional(),
    }),
    listConversations: z.object({
      user_id: clientId(),
      limit: z.coerce.number(says('must be an integer from 1 to 500')).pipe(integer(1, 500)).default(50),
      cursor: z.string().optional(),
      archived: z.enum(['true', 'false'], says('must be "true" or "false"')).default('false').meta({ description: '"true": only archived conversations; otherwise they are left out' }),
    }),
    conversationQuery: z.object({ user_id: clientId() }),
    updateConversation: body({
      user_id: clientId(),
      title: z.string(says('must be a string or null')).nullable().optional().meta({ description: '1..200 characters after trimming; null hands the title back to the service' }),
      pinned: z.boolean(says('must be true or false')).optional(),
      archived: z.boolean(says('must be true or false')).optional(),
    }),
    userPath: z.object({ user_id: clientId() }),
    search: z.object({
      user_id: clientId(),
      q: z
        .string(says(`must be a string of 1 to ${MAX_QUERY_LENGTH} characters`))
        .refine((s) => s.length > 0 && atMostCodePoints(s, MAX_QUERY_LENGTH), `must be a string of 1 to ${MAX_QUERY_LENGTH} characters`)
        .superRefine(storable)
        .meta({
          description:
            'Web-search syntax: words (found in their inflected forms), `"quoted phrases"`, `-excluded` words or phrases, and `OR` between two terms ' +
            '(`a b OR c d` is a AND (b OR c) AND d). 1..256 Unicode code points.',
          minLength: 1,
          maxLength: MAX_QUERY_LENGTH,
        }),
      conversation_id: clientId().optional(),
      role: role().optional(),
      from: timestamp().optional().meta({ description: 'Only messages created at or after this instant (ISO 8601 with a time zone)' }),
      to: timestamp().optional().meta({ description: 'Only messages created at or before this instant (ISO 8601 with a time zone)' }),
      limit: z.coerce.number(says('must be an integer from 1 to 100')).pipe(integer(1, 100)).default(20),
      cursor: z.string(says('must be a string')).optional(),
    }),
    exportConversationQuery: z.object({
      user_id: clientId(),
      format: z.enum(['json', 'markdown'], says('must be "json" or "markdown"')).default('json').meta({ description: '`json`: `{conversation, messages}` with every branch; `markdown`: the active branch as a document' }),
    }),
    exportUserQuery: z.object({
      format: z.enum(['ndjson', 'chatgpt'], says('must be "ndjson" or "chatgpt"')).default('ndjson').meta({ description: "`ndjson`: one `{conversation, messages}` line per conversation; `chatgpt`: one conversations.json in ChatGPT's export shape" }),
    }),
    /** GET /v1/chat/stream/{message_id}: the position may also come as the Last-Event-ID header. */
    resumeReply: z.object({ user_id: clientId(), after: position().optional() }),
    stopReply: body({ user_id: clientId() }),
    /** GET /v1/chat/stream/{conversation_id}/stream (the AI SDK's resume). */
    resumeConversation: z.object({ user_id: clientId() }),
    replyPath: z.object({ message_id: clientId() }),
    conversationPath: z.object({ conversation_id: clientId() }),
  };
}

export type RequestSchemas = ReturnType<typeof requestSchemas>;

import { z } from 'zod';
import { transferPaths } from './openapi-transfer.js';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { BODY_ERRORS, headers, json, reply, responses } from './openapi-responses.js';
import { replyPaths } from './openapi-replies.js';
import { speechPaths } from './openapi-speech.js';
import { openAiPaths } from './openapi-openai.js';
import { openAiRequestSchemas } from './openai-request-schemas.js';
import * as out from './response-schemas.js';
import { requestSchemas, type SchemaLimits } from './schemas.js';
import { STREAM_EVENT_SCHEMAS } from './stream-event-schemas.js';
import { withSecurity, type SecurityOptions } from './openapi-security.js';
import { usagePaths, withLimits } from './openapi-usage.js';

const DESCRIPTION = `A conversational-assistant backend: chat (plain and streamed), chat storage, text-to-speech, status and persona; and OpenAI's Responses, Conversations and Models APIs over the same data.

Every error is \`{"detail", "status": "error"}\` (OpenAI's error object beside them on \`/v1/audio/speech\` and the paths of OpenAI's
Responses, Conversations and Models APIs); every response carries \`X-Request-Id\`. Beyond the operations listed here:
a method a listed path does not list gets 405 with an \`Allow\` header naming those it does (in OpenAI's error shape on
OpenAI's paths, as their 405 says); HEAD is answered wherever GET is
(without the body); a path not listed gets 404 with the error body (in OpenAI's error shape under \`/v1/responses\`,
\`/v1/conversations\`, \`/v1/models\` and \`/v1/audio\`, and under OpenAI's APIs not offered here, such as \`/v1/chat/completions\` and
\`/v1/embeddings\`, whose 404 says what is offered), unless it is a file of the demo page (\`/\`) or of this
document's explorer (\`/docs\`): those answer GET and HEAD, OPTIONS with 200 and \`Allow: GET, HEAD\`, and any other method
with 405 and that \`Allow\`. Requests refused before any route, with the same error body and \`X-Request-Id\`: an HTTP/1.1
request without \`Host\` (400), percent-encoding that decodes to no text in an API path or query (400 naming \`path\` or
\`query\`), an \`Expect\` other than \`100-continue\` (417), \`CONNECT\` (501). Over HTTPS (HTTP/2 or HTTP/1.1; the service's own TLS, or a trusted proxy saying
the client used https) every response also carries \`Strict-Transport-Security\`.`;

export interface DocumentOptions {
  /** GET /metrics is listed only where it is served. */
  metrics: boolean;
  /** Identity on, and a token on GET /metrics: declared in the document (openapi-security.ts). */
  security?: SecurityOptions;
}

/** Documents made in this process, by what they were made of: making one takes a while, and the schemas do not change. */
const made = new Map<string, ReturnType<typeof buildDocument>>();

/**
 * The OpenAPI 3.1 document, generated from the schemas the routes validate requests with and the
 * presenters build answers with; made once per process for each set of inputs (read-only).
 */
export function openApiDocument(limits: SchemaLimits, version: string, options: DocumentOptions = { metrics: true }) {
  const key = JSON.stringify([limits, version, options]);
  let document = made.get(key);
  if (!document) made.set(key, (document = buildDocument(limits, version, options)));
  return document;
}

function buildDocument(limits: SchemaLimits, version: string, options: DocumentOptions) {
  const req = requestSchemas(limits);
  const op = (summary: string, operation: Omit<ZodOpenApiOperationObject, 'summary'>): ZodOpenApiOperationObject => ({ summary, ...operation });
  const metrics: ZodOpenApiPathsObject = {
    '/metrics': {
      get: op('Prometheus metrics', { responses: responses({ '200': { description: 'Prometheus text format', headers: headers(), content: { 'text/plain': { schema: z.string() } } } }) }),
    },
  };
  const document = createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Assistant backend',
      version,
      description: DESCRIPTION,
    },
    paths: {
      '/v1/chat': {
        post: op('Send a message and get the reply', {
          description:
            'Without `conversation_id` a new conversation starts. The question follows the head (the end of the active branch), or `parent_id`: an edit names the parent of the message it replaces, and the new question and its reply form a branch beside the old one. `regenerate` (instead of `text`) answers a user message again (or the one a reply answers; a reply saved without one: the nearest user message above it; a system message: 400): a sibling of the earlier replies; 409 while a reply to it is in progress. The reply becomes the head. The model sees only the answered branch. A repeated `message_id` replays the stored reply (or waits for it while it is still written; a reply that was cut short is asked for again and replaced); reused with other text or another `parent_id` it is 409.',
          requestBody: json(req.chat),
          responses: responses({ '200': reply('The reply, stored with the user message', out.chatResponse) }, ...BODY_ERRORS, 404, 409, 502, 503, 504),
        }),
      },
      ...replyPaths(req, op),
      '/api/chat/saveMessage': {
        post: op('Save a message', {
          description:
            'Creates the user and conversation if new. The message follows the head, or `parent_id` (a message of the conversation, else 400), and becomes the head. The same message again: 200 with the stored one; the same id with other content (or another `parent_id`, when sent): 409.',
          requestBody: json(req.saveMessage),
          responses: responses({ '201': reply('Stored', out.savedMessageResponse), '200': reply('Already stored, unchanged', out.savedMessageResponse) }, ...BODY_ERRORS, 404, 409, 503),
        }),
      },
      '/api/chat/loadMessages': {
        post: op('Load a page of messages', {
          description:
            'A branch: the active one (from the first message to the head), or the one ending at `leaf_id`; each message with its `siblings`. `branch: "all"`: every message of every branch in the conversation order. `order` `asc` reads from the first message, `desc` from the last up. Keyset pagination: pass `next_cursor` back for the next page; it keeps to its branch even if the head moves. An unknown conversation gives an empty list.',
          requestBody: json(req.loadMessages),
          responses: responses({ '200': reply('One page', out.messageListResponse) }, ...BODY_ERRORS, 404, 503),
        }),
      },
      '/api/chat/switchBranch': {
        post: op('Make a branch active', {
          description:
            'The head becomes the most recently created message among `message_id` and its descendants: what a "‹ 2/3 ›" control needs (pass the sibling\'s id). Unknown message or conversation: 404.',
          requestBody: json(req.switchBranch),
          responses: responses({ '200': reply('The new head', out.switchedBranchResponse) }, ...BODY_ERRORS, 404, 503),
        }),
      },
      '/api/chat/deleteMessages': {
        delete: op('Delete messages', {
          description:
            'Exactly the listed `message_ids`, or `all: true`; neither or both is 400. The tree stays whole: the children of a deleted message follow its parent; `descendants: true` deletes each listed message\'s subtree too. A deleted head moves to the nearest message left on its path. The fields may also be query parameters (`message_ids` comma-separated); body fields win.',
          requestParams: {
            query: z.object({
              user_id: z.string().optional(),
              conversation_id: z.string().optional(),
              message_ids: z.string().optional().meta({ description: 'comma-separated' }),
              all: z.enum(['true', 'false']).optional(),
              descendants: z.enum(['true', 'false']).optional(),
            }),
          },
          requestBody: { ...json(req.deleteMessages), required: false },
          responses: responses({ '200': reply('How many were deleted', out.deletedResponse) }, ...BODY_ERRORS, 404, 503),
        }),
      },
      '/api/chat/saveSession': {
        post: op('Save a chat session with its messages', {
          description: 'All messages are stored, or none. A new `session_id` (or none) creates the session (201); an existing one is updated (200); one of another conversation is 409.',
          requestBody: json(req.saveSession),
          responses: responses({ '201': reply('Created', out.savedSessionResponse), '200': reply('Updated', out.savedSessionResponse) }, ...BODY_ERRORS, 404, 409, 503),
        }),
      },
      '/api/chat/conversations': {
        get: op("A user's conversations, pinned first, then most recently active", {
          description: '`archived=true` lists only archived conversations; otherwise they are left out. Temporary conversations are never listed.',
          requestParams: { query: req.listConversations },
          responses: responses({ '200': reply('One page', out.conversationListResponse) }, 400, 503),
        }),
      },
      '/api/chat/conversations/{conversation_id}': {
        get: op('A conversation', {
          requestParams: { path: req.conversationPath, query: req.conversationQuery },
          responses: responses({ '200': reply('The conversation', out.conversationItemResponse) }, 400, 404, 503),
        }),
        patch: op('Rename, pin or archive a conversation', {
          description: '`title` (1..200 characters after trimming) is never replaced by a generated one; `null` hands the title back to the service. Unknown, or another user\'s: 404.',
          requestParams: { path: req.conversationPath },
          requestBody: json(req.updateConversation),
          responses: responses({ '200': reply('The conversation as changed', out.conversationItemResponse) }, ...BODY_ERRORS, 404, 503),
        }),
        delete: op('Delete a conversation', {
          description:
            'With its messages, sessions and cached speech; a reply in progress is stopped first. Afterwards no path returns anything of it. Unknown: 200 with zeros; another user\'s: 404.',
          requestParams: { path: req.conversationPath, query: req.conversationQuery },
          responses: responses({ '200': reply('What was deleted', out.deletedConversationsResponse) }, 400, 404, 503),
        }),
      },
      '/api/users/{user_id}': {
        delete: op('Erase a user', {
          description:
            'Every conversation, message, session and cached speech of the user, and the user; replies in progress are stopped first. Unknown: 200 with zeros. With identity on, only oneself (else 403).',
          requestParams: { path: req.userPath },
          responses: responses({ '200': reply('What was deleted', out.erasedUserResponse) }, 400, 503),
        }),
      },
      '/api/chat/search': {
        get: op("Search the user's own messages", {
          description:
            'Searches the caller\'s own completed messages in every branch of their conversations (never temporary conversations, never a reply still being written). ' +
            'Words match in their inflected forms (stemming by SEARCH_LANGUAGE); results come most relevant first, then most recent. When the words find nothing, ' +
            'a substring or a close misspelling of the terms still finds a message (text without spaces, such as Chinese, is always matched by substring). ' +
            'A query that cannot match anything is an empty list. `conversation_id` of an unknown conversation gives an empty list; of another user\'s, 404. ' +
            'Pass `next_cursor` back, with the same query and filters, for the next page (another query\'s cursor is 400).',
          requestParams: { query: req.search },
          responses: responses({ '200': reply('One page of results', out.searchResponse) }, 400, 404, 503),
        }),
      },
      ...transferPaths(req, op),
      ...speechPaths(op),
      ...openAiPaths(openAiRequestSchemas(limits), op),
      ...usagePaths(op),
      '/v1/health': {
        get: op('Health check', { responses: responses({ '200': reply('The process serves', out.healthResponse) }) }),
      },
      '/v1/health/ready': {
        get: op('Readiness of every dependency', {
          responses: responses({ '200': reply('Every required dependency answers', out.readinessResponse), '503': reply('A required dependency fails', out.readinessResponse) }),
        }),
      },
      '/api/status/graphdb': {
        get: op('Graph-database connection', {
          responses: responses({
            '200': reply('Connected, or not configured (status "disabled")', out.graphStatusResponse),
            '503': reply('Configured but unreachable or refusing the credentials', out.graphStatusResponse),
          }),
        }),
      },
      '/api/ai/traits': {
        get: op("The assistant's persona and personality traits", { responses: responses({ '200': reply('The persona', out.personaResponse) }) }),
      },
      '/openapi.json': {
        get: op('This document', { responses: responses({ '200': reply('OpenAPI 3.1', z.looseObject({})) }) }),
      },
      ...(options.metrics ? metrics : {}),
    },
    // The events of a stream are no response of their own: listed so that clients can name them.
    components: { schemas: STREAM_EVENT_SCHEMAS },
  });
  return withSecurity(withLimits(document), options.security ?? { identity: false, metricsToken: false });
}

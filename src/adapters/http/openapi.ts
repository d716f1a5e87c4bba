import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { BODY_ERRORS, headers, json, reply, responses } from './openapi-responses.js';
import { replyPaths } from './openapi-replies.js';
import { speechPaths } from './openapi-speech.js';
import * as out from './response-schemas.js';
import { requestSchemas, type SchemaLimits } from './schemas.js';
import { STREAM_EVENT_SCHEMAS } from './stream-event-schemas.js';
import { withSecurity, type SecurityOptions } from './openapi-security.js';

const DESCRIPTION = `A conversational-assistant backend: chat (plain and streamed), chat storage, text-to-speech, status and persona.

Every error is \`{"detail", "status": "error"}\`; every response carries \`X-Request-Id\`. Beyond the operations listed here:
a method a listed path does not list gets 405 with an \`Allow\` header naming those it does (in OpenAI's error shape on
\`/v1/audio/speech\`, as its 405 says); HEAD is answered wherever GET is
(without the body); a path not listed gets 404 with the error body, unless it is a file of the demo page (\`/\`) or of this
document's explorer (\`/docs\`): those answer GET and HEAD, OPTIONS with 200 and \`Allow: GET, HEAD\`, and any other method
with 405 and that \`Allow\`. Over HTTPS (HTTP/2 or HTTP/1.1; the service's own TLS, or a trusted proxy saying
the client used https) every response also carries \`Strict-Transport-Security\`.`;

export interface DocumentOptions {
  /** GET /metrics is listed only where it is served. */
  metrics: boolean;
  /** Identity on, and a token on GET /metrics: declared in the document (openapi-security.ts). */
  security?: SecurityOptions;
}

/** The OpenAPI 3.1 document, generated from the schemas the routes validate requests with and the presenters build answers with. */
export function openApiDocument(limits: SchemaLimits, version: string, options: DocumentOptions = { metrics: true }) {
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
          description: 'Without `conversation_id` a new conversation starts. A repeated `message_id` replays the stored reply (or waits for it while it is still written; a reply that was cut short is asked for again and replaced); reused with other text it is 409.',
          requestBody: json(req.chat),
          responses: responses({ '200': reply('The reply, stored with the user message', out.chatResponse) }, ...BODY_ERRORS, 404, 409, 502, 503, 504),
        }),
      },
      ...replyPaths(req, op),
      '/api/chat/saveMessage': {
        post: op('Save a message', {
          description: 'Creates the user and conversation if new. The same message again: 200 with the stored one; the same id with other content: 409.',
          requestBody: json(req.saveMessage),
          responses: responses({ '201': reply('Stored', out.savedMessageResponse), '200': reply('Already stored, unchanged', out.savedMessageResponse) }, ...BODY_ERRORS, 404, 409, 503),
        }),
      },
      '/api/chat/loadMessages': {
        post: op('Load a page of messages', {
          description: 'Keyset pagination: pass `next_cursor` back for the next page. An unknown conversation gives an empty list.',
          requestBody: json(req.loadMessages),
          responses: responses({ '200': reply('One page', out.messageListResponse) }, ...BODY_ERRORS, 404, 503),
        }),
      },
      '/api/chat/deleteMessages': {
        delete: op('Delete messages', {
          description: 'Exactly the listed `message_ids`, or `all: true`; neither or both is 400. The fields may also be query parameters (`message_ids` comma-separated); body fields win.',
          requestParams: {
            query: z.object({
              user_id: z.string().optional(),
              conversation_id: z.string().optional(),
              message_ids: z.string().optional().meta({ description: 'comma-separated' }),
              all: z.enum(['true', 'false']).optional(),
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
        get: op("A user's conversations, most recently active first", {
          requestParams: { query: req.listConversations },
          responses: responses({ '200': reply('One page', out.conversationListResponse) }, 400, 503),
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
      ...speechPaths(op),
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
  return withSecurity(document, options.security ?? { identity: false, metricsToken: false });
}

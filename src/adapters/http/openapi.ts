import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { audio, BODY_ERRORS, eventStream, headers, json, notModified, reply, responses, speechUnavailable } from './openapi-responses.js';
import * as out from './response-schemas.js';
import { requestSchemas, type SchemaLimits } from './schemas.js';
import { speechSchemas } from './tts-schemas.js';
import { withSecurity, type SecurityOptions } from './openapi-security.js';

const STREAM_DESCRIPTION = `Server-sent events, each \`data:\` line one JSON object:

- \`event: start\` — \`{"conversation_id", "user_message_id", "message_id"}\`
- \`event: delta\` — \`{"text"}\`, zero or more; concatenated they equal \`response\`
- \`event: done\` — \`{"response", "status": "ok", "conversation_id", "message_id", "user_message_id", "finish_reason"}\`; the reply is stored before it is sent
- \`event: error\` — \`{"detail", "status": "error"}\` instead of \`done\` when the model fails after the stream began (the status stays 200; the partial reply is stored with \`metadata.finish_reason = "error"\`)

A \`: ping\` comment is sent at least every 15 s while waiting. If the client disconnects, the model call is aborted and the partial reply stored with \`metadata.finish_reason = "cancelled"\`.
With the header \`X-Stream-Protocol: ui-message\` (or a Vercel AI SDK \`useChat\` request body) the same reply is sent in the AI SDK "UI message stream" protocol instead.`;

const DESCRIPTION = `A conversational-assistant backend: chat (plain and streamed), chat storage, text-to-speech, status and persona.

Every error is \`{"detail", "status": "error"}\`; every response carries \`X-Request-Id\`. Beyond the operations listed here:
a method a listed path does not list gets 405 with an \`Allow\` header naming those it does; HEAD is answered wherever GET is
(without the body); a path not listed gets 404 with the error body, unless it is a file of the demo page (\`/\`) or of this
document's explorer (\`/docs\`).`;

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
          description: 'Without `conversation_id` a new conversation starts. A repeated `message_id` replays the stored reply; reused with other text it is 409.',
          requestBody: json(req.chat),
          responses: responses({ '200': reply('The reply, stored with the user message', out.chatResponse) }, ...BODY_ERRORS, 404, 409, 502, 503, 504),
        }),
      },
      '/v1/chat/stream': {
        post: op('Send a message and stream the reply', {
          description: STREAM_DESCRIPTION,
          requestBody: json(req.chat),
          responses: responses(
            { '200': eventStream(STREAM_DESCRIPTION) },
            ...BODY_ERRORS, 404, 409, 503,
          ),
        }),
      },
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
      '/api/tts': {
        get: op('Audio for a stored message or a text', {
          requestParams: { query: speechSchemas.query },
          responses: responses({ '200': audio, '304': notModified, '503': speechUnavailable }, 400, 404, 502, 504),
        }),
        post: op('Generate speech audio', {
          requestBody: json(speechSchemas.body),
          responses: responses({ '200': audio, '503': speechUnavailable }, ...BODY_ERRORS, 502, 504),
        }),
      },
      '/api/tts/voices': {
        get: op('The voices of the speech engine', { responses: responses({ '200': reply('Voices', out.voicesResponse) }) }),
      },
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
  });
  return withSecurity(document, options.security ?? { identity: false, metricsToken: false });
}

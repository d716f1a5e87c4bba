import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import * as out from './response-schemas.js';
import { requestSchemas, type SchemaLimits } from './schemas.js';
import { openAiSpeechSchema } from './openai-speech-schemas.js';
import { replySpeechSchema } from './reply-speech.js';
import { speechSchemas } from './tts-schemas.js';

const ERROR_MEANINGS: Record<number, string> = {
  400: 'Invalid request: malformed JSON, a missing, empty or wrong-typed field, a value out of range. `detail` names the field.',
  404: 'Unknown path or stored thing, or a conversation that belongs to another user',
  405: 'Known path, wrong method (see the Allow header)',
  409: 'A client-supplied id reused with different content',
  413: 'Body larger than the configured limit',
  415: 'A body that is not JSON',
  500: 'An unexpected fault (logged; the detail is generic)',
  502: 'The language model or speech engine failed',
  503: 'A required dependency (the database) is unavailable, or speech synthesis is at capacity',
  504: 'The language model or speech engine timed out',
};

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
const reply = (description: string, schema: z.ZodType) => ({ description, ...json(schema) });

function responses(success: Record<string, { description: string; content?: object }>, ...errors: number[]): ZodOpenApiResponsesObject {
  const failures = Object.fromEntries(errors.map((code) => [String(code), reply(ERROR_MEANINGS[code]!, out.errorResponse)]));
  return { ...success, ...failures, '500': reply(ERROR_MEANINGS[500]!, out.errorResponse) } as ZodOpenApiResponsesObject;
}

const BODY_ERRORS = [400, 413, 415];

const STREAM_DESCRIPTION = `Server-sent events, each \`data:\` line one JSON object:

- \`event: start\` — \`{"conversation_id", "user_message_id", "message_id"}\`
- \`event: delta\` — \`{"text"}\`, zero or more; concatenated they equal \`response\`
- \`event: done\` — \`{"response", "status": "ok", "conversation_id", "message_id", "user_message_id", "finish_reason"}\`; the reply is stored before it is sent
- \`event: error\` — \`{"detail", "status": "error"}\` instead of \`done\` when the model fails after the stream began (the status stays 200; the partial reply is stored with \`metadata.finish_reason = "error"\`)

A \`: ping\` comment is sent at least every 15 s while waiting. If the client disconnects, the model call is aborted and the partial reply stored with \`metadata.finish_reason = "cancelled"\`.
With the header \`X-Stream-Protocol: ui-message\` (or a Vercel AI SDK \`useChat\` request body) the same reply is sent in the AI SDK "UI message stream" protocol instead.

With \`"speech": {"voice"?, "format"?}\` in the body (format \`wav\` or \`mp3\`, default \`mp3\`; voice as for \`/api/tts\`, a bad one is a 400 before anything is stored), one more event per finished sentence of the reply, in order and interleaved with the deltas, all before \`done\`:

- \`event: audio\` — \`{"index", "text", "format", "audio"}\`: \`audio\` is the base64 of a complete file of that format; the concatenated \`text\` fields equal \`response\`. Audio events carry no SSE \`id\`. A sentence is spoken once the next one begins (the last at the end of the reply). If speech fails mid-reply, audio events stop and the reply goes on. (In the UI message stream: transient \`data-audio\` parts with the same fields.)`;

const SPEECH_DESCRIPTION = `OpenAI's speech API (\`client.audio.speech.create\` of OpenAI's SDKs works with \`baseURL\` set to this service's \`/v1\`).

- \`model\`: required, any name (echoed in the \`X-Model\` header); the configured engine speaks.
- \`voice\`: a voice of \`GET /api/tts/voices\`, or one of OpenAI's names (alloy, ash, ballad, cedar, coral, echo, fable, marin, nova, onyx, sage, shimmer, verse), each mapped to an eSpeak NG voice; or \`{"id": …}\`.
- \`response_format\`: \`mp3\` (default), \`wav\`, \`pcm\` (raw 16-bit little-endian mono at 24 kHz, no header) or \`opus\` when the engine makes it (eSpeak NG does not: 400); \`aac\` and \`flac\` are 400.
- \`speed\`: 0.25..4.0 (OpenAI's range); eSpeak NG speaks at the nearest it can, 0.5..2.0.
- \`instructions\`: accepted, not used.
- \`stream_format\`: \`audio\` (default): the audio bytes, streamed (chunked) as the sentences are spoken; a short text or a cached one comes whole with Content-Length. \`sse\`: \`event: speech.audio.delta\` \`{"type", "audio": "<base64>"}\` events, then \`event: speech.audio.done\` \`{"type", "usage"}\` (usage counts input characters).

Errors are OpenAI's error object \`{"error": {"message", "type", "param", "code"}}\` (\`type\` \`invalid_request_error\` or \`server_error\`), with the statuses of every other endpoint, plus our \`detail\` and \`status\`.`;

/** The OpenAPI 3.1 document, generated from the schemas the routes validate with. */
export function openApiDocument(limits: SchemaLimits, version: string) {
  const req = requestSchemas(limits);
  const op = (summary: string, operation: Omit<ZodOpenApiOperationObject, 'summary'>): ZodOpenApiOperationObject => ({ summary, ...operation });
  const audio = {
    description:
      'The audio, with ETag and Cache-Control; 304 when If-None-Match matches. Streamed (chunked, a weak ETag) from the first sentence on when it is still being made; a WAV streamed so says 0xFFFFFFFF in its sizes. A finished or cached answer comes whole, with Content-Length. A failure before the first byte is an ordinary JSON error; after it the connection is cut.',
    content: { 'audio/wav': { schema: z.string().meta({ format: 'binary' }) }, 'audio/mpeg': { schema: z.string().meta({ format: 'binary' }) } },
  };
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Assistant backend',
      version,
      description: 'A conversational-assistant backend: chat (plain and streamed), chat storage, text-to-speech, status and persona. Every error is `{"detail", "status": "error"}`; every response carries `X-Request-Id`.',
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
          requestBody: json(req.chat.extend({ speech: replySpeechSchema })),
          responses: responses(
            { '200': { description: 'The event stream', content: { 'text/event-stream': { schema: z.string().meta({ description: STREAM_DESCRIPTION }) } } } },
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
          responses: responses({ '200': audio, '304': { description: 'Not modified' } }, 400, 404, 502, 503, 504),
        }),
        post: op('Generate speech audio', {
          requestBody: json(speechSchemas.body),
          responses: responses({ '200': audio, '304': { description: 'Not modified' } }, ...BODY_ERRORS, 502, 503, 504),
        }),
      },
      '/v1/audio/speech': {
        post: op('OpenAI-compatible speech', {
          description: SPEECH_DESCRIPTION,
          requestBody: json(openAiSpeechSchema),
          responses: {
            '200': {
              description: 'The audio (or, with `stream_format: "sse"`, its events)',
              content: Object.fromEntries(
                ['audio/mpeg', 'audio/wav', 'audio/pcm', 'audio/ogg', 'text/event-stream'].map((type) => [type, { schema: z.string().meta({ format: 'binary' }) }]),
              ),
            },
            ...Object.fromEntries([...BODY_ERRORS, 405, 500, 502, 503, 504].map((code) => [String(code), reply(ERROR_MEANINGS[code]!, out.openAiErrorResponse)])),
          },
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
          responses: { '200': reply('Every required dependency answers', out.readinessResponse), '503': reply('A required dependency fails', out.readinessResponse) },
        }),
      },
      '/api/status/graphdb': {
        get: op('Graph-database connection', {
          responses: {
            '200': reply('Connected, or not configured (status "disabled")', out.graphStatusResponse),
            '503': reply('Configured but unreachable or refusing the credentials', out.graphStatusResponse),
          },
        }),
      },
      '/api/ai/traits': {
        get: op("The assistant's persona and personality traits", { responses: responses({ '200': reply('The persona', out.personaResponse) }) }),
      },
      '/openapi.json': {
        get: op('This document', { responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: z.object({}).passthrough() } } } } }),
      },
      '/metrics': {
        get: op('Prometheus metrics', { responses: { '200': { description: 'Prometheus text format', content: { 'text/plain': { schema: z.string() } } } } }),
      },
    },
  });
}

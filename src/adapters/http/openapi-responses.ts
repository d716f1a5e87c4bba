import { z } from 'zod';
import type { ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { errorResponse, openAiErrorResponse } from './response-schemas.js';

/** The pieces every operation's responses are made of, so that each says the same thing the same way. */

const ERROR_MEANINGS: Record<number, string> = {
  400: 'Invalid request: malformed JSON, a missing, empty or wrong-typed field, a value out of range (`detail` names the field), or a request the HTTP parser refuses',
  404: 'Unknown path or stored thing, or a conversation that belongs to another user',
  408: 'The request (headers and body) did not arrive in full within the time limit (REQUEST_TIMEOUT_MS)',
  409: 'A client-supplied id reused with different content',
  413: 'Body larger than the configured limit',
  415: 'A body that is not JSON',
  431: 'Request headers (or the URL) too large, refused by the HTTP parser',
  500: 'An unexpected fault (logged; the detail is generic)',
  502: 'The language model or speech engine failed',
  503: 'A required dependency (the database) is unavailable, or every database connection of the instance stayed busy for the whole wait (DATABASE_TIMEOUT_MS)',
  504: 'The language model or speech engine timed out',
};

/** Operations without input can still meet the HTTP parser's refusals. */
const PARSER_REFUSAL = 'A request the HTTP parser refuses (a malformed request line or header), or, on API paths, a query with malformed percent-encoding (`detail` names `query`)';

const requestId = z
  .string()
  .meta({ description: "The client's X-Request-Id when it sent 1..128 printable ASCII characters, else a new one", header: { id: 'RequestId' } });

type Headers = Record<string, z.ZodType>;

/** Response headers: X-Request-Id on every response, plus `extra`. */
export const headers = (extra: Headers = {}) => z.object({ 'X-Request-Id': requestId, ...extra });

export const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

export const reply = (description: string, schema: z.ZodType, extra?: Headers): ZodOpenApiResponseObject => ({
  description,
  headers: headers(extra),
  ...json(schema),
});

export const errorReply = (status: number, description = ERROR_MEANINGS[status]!, extra?: Headers) => reply(description, errorResponse, extra);

/** The statuses every operation with a JSON body may answer besides its own: 400, 413 and 415. */
export const BODY_ERRORS = [400, 413, 415];

/**
 * An operation's responses: its own (which win), the listed errors, and what any request may
 * meet before or beside its route: the HTTP parser's 400 and 431, a request too slow to arrive
 * (408), and an unexpected fault (500).
 */
export function responses(own: Record<string, ZodOpenApiResponseObject>, ...errors: number[]): ZodOpenApiResponsesObject {
  const listed = Object.fromEntries(errors.map((status) => [String(status), errorReply(status)]));
  const anywhere = { '400': errorReply(400, PARSER_REFUSAL), '408': errorReply(408), '431': errorReply(431), '500': errorReply(500) };
  return { ...anywhere, ...listed, ...own };
}

const binary = z.string().meta({ format: 'binary' });

/** Audio is sent whole when it is finished (cached, or short), else streamed while it is made. */
const etag = z
  .string()
  .regex(/^(W\/)?"[^"]*"$/)
  .meta({
    description:
      'Names this audio; send it back in If-None-Match. Strong for a file sent whole; weak (`W/"…"`) for one streamed while it is made ' +
      '(a streamed WAV says 0xFFFFFFFF in its sizes where the finished file gives them). Either matches in If-None-Match.',
  });
const contentLength = z
  .string()
  .regex(/^\d+$/)
  .optional()
  .meta({ description: 'Sent when the audio comes whole (a strong ETag); absent when it is streamed (chunked, a weak ETag)' });
const audioHeaders = {
  ETag: etag,
  'Content-Length': contentLength,
  'Cache-Control': z.string().meta({ description: 'public for audio named by its text, private for a stored message' }),
};

export const audio: ZodOpenApiResponseObject = {
  description:
    'The audio. A finished or cached file comes whole, with Content-Length and a strong ETag; audio still being made is streamed ' +
    '(chunked) from its first sentence on, without Content-Length and with a weak ETag. A failure before the first byte is an ' +
    'ordinary JSON error; after it the connection is cut (never a truncated file passed off as whole).',
  headers: headers(audioHeaders),
  content: { 'audio/wav': { schema: binary }, 'audio/mpeg': { schema: binary } },
};

export const notModified: ZodOpenApiResponseObject = {
  description: 'Not modified: If-None-Match names this audio',
  headers: headers(audioHeaders),
};

/** 503 of the speech endpoints: no capacity left (with Retry-After), or the database is away. */
export const speechUnavailable = errorReply(503, 'Speech synthesis is at capacity (try again after Retry-After seconds), or the database is unavailable', {
  'Retry-After': z.string().optional().meta({ description: 'Seconds to wait, when speech synthesis is at capacity' }),
});

/**
 * The responses of an OpenAI-compatible operation: its own, and its errors as OpenAI's error
 * object (with our `detail` and `status`). What may be answered before its route runs (the HTTP
 * parser's 400 and 431, a fault outside the route's 500) has the Error shape: 400 and 500 may be either.
 */
export function openAiResponses(own: Record<string, ZodOpenApiResponseObject>, ...errors: number[]): ZodOpenApiResponsesObject {
  const listed = Object.fromEntries(errors.map((status) => [String(status), reply(ERROR_MEANINGS[status]!, openAiErrorResponse)]));
  const either = (status: number) => reply(ERROR_MEANINGS[status]!, z.union([openAiErrorResponse, errorResponse]));
  return { ...listed, '400': either(400), '431': errorReply(431), '500': either(500), ...own };
}

/** POST /v1/audio/speech's audio: any format the engine makes, or OpenAI's speech events. */
export const openAiAudio: ZodOpenApiResponseObject = {
  description: 'The audio, whole or streamed as for /api/tts; or, with `stream_format: "sse"`, its events',
  headers: headers({
    ETag: etag.optional(),
    'Content-Length': contentLength,
    'X-Model': z.string().optional().meta({ description: 'The `model` asked for, when it is printable ASCII' }),
  }),
  content: {
    ...Object.fromEntries(['audio/mpeg', 'audio/wav', 'audio/pcm', 'audio/ogg'].map((type) => [type, { schema: binary }])),
    'text/event-stream': { schema: z.string().meta({ description: '`speech.audio.delta` events, then `speech.audio.done` (or `error`)' }) },
  },
};

/** 405 of a path whose other methods answer in its own error shape (Allow names the methods it has). */
export const methodNotAllowed = (schema: z.ZodType) =>
  reply('Another method on this path (the Allow header names those it has): answered in this shape', schema, { Allow: z.string() });

export const eventStream = (description: string): ZodOpenApiResponseObject => ({
  description: 'The event stream',
  headers: headers({
    'X-Vercel-AI-UI-Message-Stream': z.literal('v1').optional().meta({ description: 'Present when the AI SDK UI message stream protocol is used' }),
  }),
  content: { 'text/event-stream': { schema: z.string().meta({ description }) } },
});

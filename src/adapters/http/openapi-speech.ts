import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import {
  audio,
  BODY_ERRORS,
  json,
  methodNotAllowed,
  notModified,
  openAiAudio,
  openAiResponses,
  reply,
  responses,
  speechUnavailable,
} from './openapi-responses.js';
import { openAiSpeechSchema } from './openai-speech-schemas.js';
import * as out from './response-schemas.js';
import { speechSchemas } from './tts-schemas.js';

const SPEECH_DESCRIPTION = `OpenAI's speech API (\`client.audio.speech.create\` of OpenAI's SDKs works with \`baseURL\` set to this service's \`/v1\`).

- \`model\`: required, any name (echoed in the \`X-Model\` header); the configured engine speaks.
- \`voice\`: a voice of \`GET /api/tts/voices\`, or one of OpenAI's names (alloy, ash, ballad, cedar, coral, echo, fable, marin, nova, onyx, sage, shimmer, verse), each mapped to an eSpeak NG voice; or \`{"id": …}\`.
- \`response_format\`: \`mp3\` (default), \`wav\`, \`pcm\` (raw 16-bit little-endian mono at 24 kHz, no header) or \`opus\` when the engine makes it (eSpeak NG does not: 400); \`aac\` and \`flac\` are 400.
- \`speed\`: 0.25..4.0 (OpenAI's range); eSpeak NG speaks at the nearest it can, 0.5..2.0.
- \`instructions\`: accepted, not used.
- \`stream_format\`: \`audio\` (default): the audio bytes, streamed (chunked) as the sentences are spoken; a short text or a cached one comes whole with Content-Length. \`sse\`: \`event: speech.audio.delta\` \`{"type", "audio": "<base64>"}\` events, then \`event: speech.audio.done\` \`{"type", "usage"}\` (usage counts input characters).

Errors are OpenAI's error object \`{"error": {"message", "type", "param", "code"}}\` (\`type\` \`invalid_request_error\` or \`server_error\`), with the statuses of every other endpoint, plus our \`detail\` and \`status\`.`;

type Operation = (summary: string, operation: Omit<ZodOpenApiOperationObject, 'summary'>) => ZodOpenApiOperationObject;

/** The speech endpoints of the document: /api/tts, its voices, and OpenAI's /v1/audio/speech. */
export function speechPaths(op: Operation): ZodOpenApiPathsObject {
  return {
    '/api/tts': {
      get: op('Audio for a stored message or a text', {
        description: 'Exactly one of `text` and `message_id`; a stored message is spoken only with its owner\'s `user_id` (else 404, as for one that does not exist); a reply still being written: 409 `the reply is still being written`.',
        requestParams: { query: speechSchemas.query },
        responses: responses({ '200': audio, '304': notModified, '503': speechUnavailable }, 400, 404, 409, 502, 504),
      }),
      post: op('Generate speech audio', {
        requestBody: json(speechSchemas.body),
        responses: responses({ '200': audio, '503': speechUnavailable }, ...BODY_ERRORS, 502, 504),
      }),
    },
    '/v1/audio/speech': {
      post: op('OpenAI-compatible speech', {
        description: SPEECH_DESCRIPTION,
        requestBody: json(openAiSpeechSchema),
        responses: openAiResponses(
          {
            '200': openAiAudio,
            '405': methodNotAllowed(out.openAiErrorResponse),
            '503': reply(speechUnavailable.description, out.openAiErrorResponse, { 'Retry-After': z.string().optional().meta({ description: 'Seconds to wait' }) }),
          },
          ...BODY_ERRORS, 502, 504,
        ),
      }),
    },
    '/api/tts/voices': {
      get: op('The voices of the speech engine', { responses: responses({ '200': reply('Voices', out.voicesResponse) }) }),
    },
  };
}

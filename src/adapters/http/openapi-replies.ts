import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { BODY_ERRORS, eventStream, headers, json, reply, responses } from './openapi-responses.js';
import { replySpeechSchema } from './reply-speech.js';
import * as out from './response-schemas.js';
import type { RequestSchemas } from './schemas.js';

export const STREAM_DESCRIPTION = `Server-sent events, each \`data:\` line one JSON object, each event with an \`id:\` line: the number of code points of the reply the client holds after that event (\`start\`: 0 — or, resuming, the position resumed from; each \`delta\`: the running total; \`done\` / \`error\`: the final total):

- \`event: start\` — \`{"conversation_id", "user_message_id", "message_id"}\`
- \`event: delta\` — \`{"text"}\`, zero or more; concatenated they equal \`response\`
- \`event: done\` — \`{"response", "status": "ok", "conversation_id", "message_id", "user_message_id", "finish_reason"}\`; the reply is stored before it is sent
- \`event: error\` — \`{"detail", "status": "error"}\` instead of \`done\` when the model fails after the stream began (the status stays 200; the partial reply is stored with \`metadata.finish_reason = "error"\` and \`metadata.error\` = the detail), or when the service shuts down before the reply ends (stored as \`interrupted\`)

Each \`data\` is described by a schema of this document: StreamStart, StreamDelta, StreamDone, StreamError (and StreamAudio, below).

A \`: ping\` comment is sent at least every 15 s while waiting. The reply belongs to the service, not to the connection: while it is written it is stored (\`status: "in_progress"\`, its text so far, at most 1 s behind); a client that disconnects leaves it running to its end (unless STREAM_ON_DISCONNECT=cancel), and can resume it with \`GET /v1/chat/stream/{message_id}\` and \`Last-Event-ID\`, on any instance. Repeating a \`message_id\` whose reply is still being written joins it (the events of a resume from the beginning).
With the header \`X-Stream-Protocol: ui-message\` (or a Vercel AI SDK \`useChat\` request body) the same reply is sent in the AI SDK "UI message stream" protocol instead, with the same ids.

With \`"speech": {"voice"?, "format"?}\` in the body (format \`wav\` or \`mp3\`, default \`mp3\`; voice as for \`/api/tts\`, a bad one is a 400 before anything is stored), one more event per finished sentence of the reply, in order and interleaved with the deltas, all before \`done\`:

- \`event: audio\` — \`{"index", "text", "format", "audio"}\`: \`audio\` is the base64 of a complete file of that format; the concatenated \`text\` fields equal \`response\`. Audio events carry no SSE \`id\`. A sentence is spoken once the next one begins (the last at the end of the reply). If speech fails mid-reply, audio events stop and the reply goes on. (In the UI message stream: transient \`data-audio\` parts with the same fields.)`;

const userIdQuery = z.string().meta({ description: 'the owner of the conversation' });

/** The reply endpoints: stream one, resume one, stop one, and the AI SDK's resume of a conversation. */
export function replyPaths(req: RequestSchemas, op: (summary: string, operation: Omit<ZodOpenApiOperationObject, 'summary'>) => ZodOpenApiOperationObject): ZodOpenApiPathsObject {
  return {
    '/v1/chat/stream': {
      post: op('Send a message and stream the reply', {
        description: STREAM_DESCRIPTION,
        requestBody: json(req.chat.extend({ speech: replySpeechSchema })),
        responses: responses({ '200': eventStream(STREAM_DESCRIPTION) }, ...BODY_ERRORS, 404, 409, 503),
      }),
    },
    '/v1/chat/stream/{message_id}': {
      get: op('Resume a reply', {
        description:
          '`start`, then one `delta` holding every code point after the position the client holds (the `Last-Event-ID` header, else `?after=`, else 0), then the live deltas, then `done` or `error`, with ids as for `POST /v1/chat/stream`. A finished reply gives the same events and ends at once; a reply whose producer died ends with `done` and `finish_reason: "interrupted"`. Works on any instance sharing the database. An unknown message, another user\'s, or one that is not an assistant reply: 404. `X-Stream-Protocol: ui-message` gives the AI SDK protocol.',
        requestParams: {
          path: z.object({ message_id: z.string().meta({ description: "the reply's id, announced in `start`" }) }),
          query: z.object({ user_id: userIdQuery, after: z.string().optional().meta({ description: 'code points the client holds' }) }),
          header: z.object({ 'Last-Event-ID': z.string().optional().meta({ description: 'the id of the last event the client holds (wins over `after`)' }) }),
        },
        responses: responses({ '200': eventStream(STREAM_DESCRIPTION) }, 400, 404, 503),
      }),
    },
    '/v1/chat/stream/{message_id}/stop': {
      post: op('Stop a reply', {
        description:
          'Ends a reply in progress, wherever it is produced: the model call is aborted, the text so far is stored with `finish_reason: "cancelled"`, and every open stream of the reply ends with `done` carrying it. A finished reply is answered as it is, unchanged. A reply stopped before its first piece is removed: `message` is then null.',
        requestParams: { path: z.object({ message_id: z.string() }) },
        requestBody: json(req.stopReply),
        responses: responses({ '200': reply('The reply as stored', out.stoppedReplyResponse) }, ...BODY_ERRORS, 404, 503),
      }),
    },
    '/v1/chat/stream/{conversation_id}/stream': {
      get: op("Resume a conversation's reply in progress (the AI SDK's useChat resume)", {
        description: "For `useChat({ resume: true })`: 204 when no reply of the conversation is in progress, else that reply's UI message stream from its beginning.",
        requestParams: { path: z.object({ conversation_id: z.string() }), query: z.object({ user_id: userIdQuery }) },
        responses: responses(
          { '200': eventStream('The AI SDK UI message stream of the reply in progress'), '204': { description: 'No reply of this conversation is in progress', headers: headers() } },
          400,
          404,
          503,
        ),
      }),
    },
  };
}

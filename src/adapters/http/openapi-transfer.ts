import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { headers, reply, responses } from './openapi-responses.js';
import * as out from './response-schemas.js';
import type { RequestSchemas } from './schemas.js';

type Operation = (summary: string, operation: Omit<ZodOpenApiOperationObject, 'summary'>) => ZodOpenApiOperationObject;

const attachment = { 'Content-Disposition': z.string().meta({ description: 'attachment, with a file name' }) };
const file = z.string().meta({ format: 'binary' });

const IMPORT_DESCRIPTION = `Reads, told apart by their shape: this service's \`ndjson\` export (one \`{conversation, messages}\` per line); ChatGPT's \`conversations.json\` (whole, or one of the split \`conversations-NNN.json\`); Claude's \`conversations.json\` (conversations with \`chat_messages\`). The body is the file itself, sent as \`application/json\`, \`application/*+json\`, \`application/x-ndjson\` or \`application/octet-stream\` (another type, or none: 415), read as a stream, up to \`IMPORT_MAX_BYTES\` (default 256 MiB; beyond: 413), apart from the ordinary request limit; the whole body must arrive within \`REQUEST_TIMEOUT_MS\`.

Trees are kept (ChatGPT's \`current_node\` becomes the head); hidden system nodes and empty messages are skipped; parts that are not text become a placeholder such as \`[image]\`, their kinds in \`metadata.imported.parts\`; titles and times are kept. Imported conversations and messages get ids derived from the user and their id in the file (uuid v5), so importing a file again creates nothing and two users' imports never collide; this service's own export keeps its ids where they are free or already this user's. A conversation that cannot be read is listed in \`errors\` and skipped, the rest imported; a body of no format: 400, nothing stored. An empty body is an \`ndjson\` file of no lines (the export of a user without conversations): 200 with zero counts; empty with a JSON \`Content-Type\`: 400. With identity on, only oneself (else 403). Field by field: docs/import-export.md.`;

/** The export and import endpoints of the document. */
export function transferPaths(req: RequestSchemas, op: Operation): ZodOpenApiPathsObject {
  return {
    '/api/chat/conversations/{conversation_id}/export': {
      get: op('Export a conversation', {
        description:
          '`json` (default): `{conversation, messages}` with every branch (`parent_id` kept), importable as it is; `markdown`: the active branch as a readable document. Sent as an attachment. Unknown, another user\'s or temporary: 404.',
        requestParams: { path: req.conversationPath, query: req.exportConversationQuery },
        responses: responses(
          {
            '200': {
              description: 'The conversation, as a file',
              headers: headers(attachment),
              content: { 'application/json': { schema: out.exportedConversationResponse }, 'text/markdown': { schema: z.string() } },
            },
          },
          400, 404, 503,
        ),
      }),
    },
    '/api/users/{user_id}/export': {
      get: op("Export a user's conversations", {
        description:
          "Every conversation of the user but temporary ones, streamed (memory bounded whatever their number). `ndjson` (default, `application/x-ndjson`): one `{conversation, messages}` line per conversation, the shape of the per-conversation json export; `chatgpt`: one `conversations.json` in ChatGPT's export shape (each conversation a `mapping` of nodes `{id, message, parent, children}` with `current_node`). A user without conversations: an empty file. With identity on, only oneself (else 403).",
        requestParams: { path: req.userPath, query: req.exportUserQuery },
        responses: responses(
          {
            '200': {
              description: 'The conversations, as a file',
              headers: headers(attachment),
              content: { 'application/x-ndjson': { schema: z.string() }, 'application/json': { schema: z.array(z.looseObject({})) } },
            },
          },
          400, 503,
        ),
      }),
    },
    '/api/users/{user_id}/import': {
      post: op('Import conversations', {
        description: IMPORT_DESCRIPTION,
        requestParams: { path: req.userPath },
        requestBody: { content: { 'application/json': { schema: file }, 'application/x-ndjson': { schema: file }, 'application/octet-stream': { schema: file } } },
        responses: responses({ '200': reply('What was imported, and what could not be', out.importResponse) }, 400, 413, 415, 503),
      }),
    },
  };
}

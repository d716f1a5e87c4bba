import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { BODY_ERRORS, headers, json, methodNotAllowed, openAiResponses, reply } from './openapi-responses.js';
import type { OpenAiRequestSchemas } from './openai-request-schemas.js';
import * as out from './openai-response-schemas.js';
import { openAiErrorResponse } from './response-schemas.js';

type Operation = (summary: string, operation: Omit<ZodOpenApiOperationObject, 'summary'>) => ZodOpenApiOperationObject;

const WHO = `The user: with identity on, the credential's (an API key that acts for any user names the user in the query's \`user_id\`); with identity off, the bearer value itself (\`Authorization: Bearer alice\`: what OpenAI's SDKs send as their API key). Another user's or an unknown id: 404. Errors are OpenAI's error object \`{"error": {"message", "type", "param", "code"}}\` (with our \`detail\` and \`status\`); \`param\` names the field at fault as OpenAI does (\`input[0].content[1]\`).`;

export const RESPONSE_EVENTS = `OpenAI's stream events, each \`event: <type>\` with a \`data\` object holding \`type\` and \`sequence_number\`: \`response.created\` (0), \`response.in_progress\` (1), then, with the reply's first piece (as OpenAI announces an output item once the model begins it), \`response.output_item.added\` (2) and \`response.content_part.added\` (3), \`response.output_text.delta\` (one per piece; its number is the count of code points of the reply after it, plus 3), then, with L code points in all, \`response.output_text.done\` (L + 4), \`response.content_part.done\` (L + 5), \`response.output_item.done\` (L + 6) and the last: \`response.completed\`, \`response.incomplete\` (incomplete or cancelled: see \`response.status\`) or \`response.failed\` (L + 7). A response that ends without text (failed or cancelled before its first piece) has no output item and its stream announces none: its last event (2) follows \`response.in_progress\`. The numbers are the same on every replay, on any instance. A fault of the service itself ends the stream with an \`error\` event \`{"type": "error", "code", "message", "param", "sequence_number"}\`. A \`: ping\` comment is sent at least every 15 s while waiting.`;

const CREATE = `OpenAI's \`POST /responses\`, for text. A response is the native API's assistant reply (the same id), a conversation the native conversation.

- \`input\`: a string, or message items (\`role\` user, system, developer or assistant; \`content\` a string or \`input_text\` / \`output_text\` parts) whose last is the user's; they are stored as the conversation's messages before the reply (\`developer\` as a system message). Other item or part types are a 400 naming them in \`param\`.
- \`conversation\` (an id or \`{"id"}\`): the turn follows that conversation's head. \`previous_response_id\`: it follows that response, starting a branch where the response is not the head; the model sees only that branch. Neither: a new conversation. Both: 400.
- \`instructions\`: added to the persona's system prompt for this turn only, kept on the response, not stored as a message. \`max_output_tokens\` and \`temperature\` go to the model (\`incomplete\` with \`incomplete_details.reason: "max_output_tokens"\` when the limit cut the reply).
- \`store: false\`: nothing is kept (\`conversation\` is null; it cannot be retrieved); with \`background: true\`, 400.
- \`background: true\`: answered at once (\`in_progress\`); the reply is a durable reply: \`GET /v1/responses/{id}\` shows it, with its text so far, on any instance.
- \`stream: true\`: ${RESPONSE_EVENTS}
- Otherwise the finished response; a model failure is 502 (504 for a time-out), the response then stored as \`failed\`.
- \`tools\` (non-empty), \`prompt\` and a \`text.format\` other than text are 400; OpenAI's other fields are accepted and ignored.

${WHO}`;

const responsePath = z.object({ response_id: z.string().meta({ description: "the response's id: its reply's message id" }) });
const conversationPath = z.object({ conversation_id: z.string() });
const unauthorized = reply('No `Authorization: Bearer <user>` (identity off), or a credential not accepted', openAiErrorResponse, {
  'WWW-Authenticate': z.string().meta({ description: '`Bearer`, plus `error="invalid_token"` when a credential was sent' }),
});
const notAllowed = methodNotAllowed(openAiErrorResponse);
const forbidden = reply('With identity on: `user_id` names another user than the one authenticated', openAiErrorResponse);

const responseOrEvents = (description: string): ZodOpenApiResponseObject => ({
  description,
  headers: headers(),
  content: { ...json(out.openAiResponse).content, 'text/event-stream': { schema: z.string().meta({ description: RESPONSE_EVENTS }) } },
});

/** Errors of an operation that names the user (401) and reads the store (503). */
const answers = (own: Record<string, ZodOpenApiResponseObject>, ...errors: number[]) => openAiResponses({ '401': unauthorized, '403': forbidden, '405': notAllowed, ...own }, ...errors, 503);

/** The paths of OpenAI's Responses, Conversations and Models APIs. */
export function openAiPaths(req: OpenAiRequestSchemas, op: Operation): ZodOpenApiPathsObject {
  const listQuery = z.object({
    limit: z.string().optional().meta({ description: '1..100, default 20' }),
    order: z.enum(['asc', 'desc']).optional().meta({ description: 'default desc, as OpenAI' }),
    after: z.string().optional().meta({ description: 'the id of the last item of the page before' }),
  });
  return {
    '/v1/responses': {
      post: op('Create a response (OpenAI Responses API)', {
        description: CREATE,
        requestBody: json(req.createResponse),
        responses: answers({ '200': responseOrEvents('The response (finished, or at once with background), or its events with stream') }, ...BODY_ERRORS, 404, 409, 502, 504),
      }),
    },
    '/v1/responses/{response_id}': {
      get: op('Retrieve a response', {
        description: `The response (any assistant reply of the user's: one of the native API too), with its text so far while in progress; one that failed or was cancelled before its first piece is kept as it ended, without output. With \`stream=true\`: its events after \`starting_after\` (a sequence number; none: from the start), live until its end, from any instance sharing the database: ${RESPONSE_EVENTS}\n\n${WHO}`,
        requestParams: {
          path: responsePath,
          query: z.object({
            stream: z.enum(['true', 'false']).optional(),
            starting_after: z.string().optional().meta({ description: 'the sequence number of the last event the client holds' }),
          }),
        },
        responses: answers({ '200': responseOrEvents('The response, or its events') }, 400, 404),
      }),
      delete: op('Delete a response', {
        description: `The reply is deleted (stopped first, when in progress); the items its request added stay in the conversation. ${WHO}`,
        requestParams: { path: responsePath },
        responses: answers({ '200': reply('Deleted', out.openAiDeletedResponse) }, 400, 404),
      }),
    },
    '/v1/responses/{response_id}/cancel': {
      post: op('Cancel a response', {
        description: `Stops the reply wherever it is produced: \`cancelled\`, its text so far kept. A finished response is answered unchanged. (A reply stopped before its first piece leaves no message, as every native one: it is answered cancelled, without output, and found so afterwards.) ${WHO}`,
        requestParams: { path: responsePath },
        responses: answers({ '200': reply('The response', out.openAiResponse) }, ...BODY_ERRORS, 404),
      }),
    },
    '/v1/responses/{response_id}/input_items': {
      get: op("A response's input items", {
        description: `The messages its request added, in OpenAI's list shape (for a reply of the native API: the question it answers). ${WHO}`,
        requestParams: { path: responsePath, query: listQuery },
        responses: answers({ '200': reply('A page of items', out.openAiItemList) }, 400, 404),
      }),
    },
    '/v1/conversations': {
      post: op('Create a conversation (OpenAI Conversations API)', {
        description: `A new conversation of the user's (the native API's, the same id), with its first \`items\` (at most 20 message items, as the input of a response) and \`metadata\` (at most 16 pairs; keys ≤ 64, values ≤ 512 characters). ${WHO}`,
        requestBody: json(req.createConversation),
        responses: answers({ '200': reply('The conversation', out.openAiConversation) }, ...BODY_ERRORS),
      }),
    },
    '/v1/conversations/{conversation_id}': {
      get: op('Retrieve a conversation', {
        description: `Any conversation of the user's, made by either API (metadata \`{}\` when it has none). ${WHO}`,
        requestParams: { path: conversationPath },
        responses: answers({ '200': reply('The conversation', out.openAiConversation) }, 400, 404),
      }),
      post: op("Update a conversation's metadata", {
        description: `Replaces its metadata (\`null\`: clears it). ${WHO}`,
        requestParams: { path: conversationPath },
        requestBody: json(req.updateConversation),
        responses: answers({ '200': reply('The conversation', out.openAiConversation) }, ...BODY_ERRORS, 404),
      }),
      delete: op('Delete a conversation', {
        description: `The conversation with its messages (their responses), sessions and metadata; replies in progress are stopped first. Nothing of it can be read afterwards by either API. ${WHO}`,
        requestParams: { path: conversationPath },
        responses: answers({ '200': reply('Deleted', out.openAiDeletedConversation) }, 400, 404),
      }),
    },
    '/v1/conversations/{conversation_id}/items': {
      get: op("A conversation's items", {
        description: `The active branch (from the first message to the head), a page at a time, in OpenAI's list shape; \`after\` names the last item of the page before (an id not in the conversation, as a deleted item's: 400 naming it). ${WHO}`,
        requestParams: { path: conversationPath, query: listQuery },
        responses: answers({ '200': reply('A page of items', out.openAiItemList) }, 400, 404),
      }),
      post: op('Add items to a conversation', {
        description: `1..20 message items, stored after the head in order; the last becomes the head. ${WHO}`,
        requestParams: { path: conversationPath },
        requestBody: json(req.addItems),
        responses: answers({ '200': reply('The items added', out.openAiItemList) }, ...BODY_ERRORS, 404),
      }),
    },
    '/v1/conversations/{conversation_id}/items/{item_id}': {
      get: op('Retrieve an item', {
        description: `A message of the conversation, of any branch. ${WHO}`,
        requestParams: { path: z.object({ conversation_id: z.string(), item_id: z.string() }) },
        responses: answers({ '200': reply('The item', out.openAiItem) }, 400, 404),
      }),
      delete: op('Delete an item', {
        description: `Deletes the message; its children follow its parent, a deleted head moves to the nearest message left on its path. Answers the conversation. ${WHO}`,
        requestParams: { path: z.object({ conversation_id: z.string(), item_id: z.string() }) },
        responses: answers({ '200': reply('The conversation', out.openAiConversation) }, 400, 404),
      }),
    },
    '/v1/models': {
      get: op('The model (OpenAI Models API)', {
        description: 'The configured language model, in OpenAI\'s list shape. The caller is named as on every path of these APIs: without `Authorization`, 401.',
        responses: openAiResponses({ '200': reply('The models', out.openAiModelList), '401': unauthorized, '405': notAllowed }),
      }),
    },
    '/v1/models/{model}': {
      get: op('A model', {
        description: 'The configured model by its id; any other: 404.',
        requestParams: { path: z.object({ model: z.string() }) },
        responses: openAiResponses({ '200': reply('The model', out.openAiModel), '401': unauthorized, '405': notAllowed }, 404),
      }),
    },
  };
}

import type { ConversationView } from '../../application/responses/conversation-items.js';
import type { ReplyState, ResponseView } from '../../application/responses/response-view.js';
import type { Message } from '../../domain/message.js';
import { estimateTokens } from '../../domain/usage.js';
import type { Body } from './presenters.js';
import type * as out from './openai-response-schemas.js';

/**
 * The answers of OpenAI's Responses and Conversations APIs, typed by their response schemas as
 * in presenters.ts. A reply's finish reason says its response's status: the model's `length` is
 * OpenAI's `incomplete` (max_output_tokens), a stop is `cancelled`, a failure or an interrupted
 * reply `failed`.
 */

type Status = Body<typeof out.openAiResponse>['status'];
type Item = Body<typeof out.openAiItem>;

const unix = (date: Date) => Math.floor(date.getTime() / 1000);

const INCOMPLETE: Record<string, string> = { length: 'max_output_tokens', content_filter: 'content_filter' };
const FAILED = new Set(['error', 'interrupted']);
const INTERRUPTED = 'the service stopped while writing this response; it is kept as it was';

/** The status of a reply's response, and why it failed or is incomplete. */
function outcomeOf(reply: ReplyState): { status: Status; error: { code: string; message: string } | null; incomplete: { reason: string } | null } {
  const reason = reply.finishReason ?? 'stop';
  if (reply.status === 'in_progress') return { status: 'in_progress', error: null, incomplete: null };
  if (reason === 'cancelled') return { status: 'cancelled', error: null, incomplete: null };
  if (FAILED.has(reason)) {
    const detail = reason === 'interrupted' ? INTERRUPTED : typeof reply.metadata.error === 'string' ? reply.metadata.error : 'the response failed';
    return { status: 'failed', error: { code: 'server_error', message: detail }, incomplete: null };
  }
  if (INCOMPLETE[reason]) return { status: 'incomplete', error: null, incomplete: { reason: INCOMPLETE[reason]! } };
  return { status: 'completed', error: null, incomplete: null };
}

function itemStatus(message: Pick<Message, 'status' | 'finishReason'>): Item['status'] {
  if (message.status === 'in_progress') return 'in_progress';
  return message.finishReason !== null && message.finishReason !== 'stop' && (FAILED.has(message.finishReason) || message.finishReason in INCOMPLETE || message.finishReason === 'cancelled') ? 'incomplete' : 'completed';
}

/** The reply as the one output item of its response. */
function outputItem(reply: ReplyState): Item {
  return { type: 'message', id: reply.messageId, status: itemStatus(reply), role: 'assistant', content: [{ type: 'output_text', text: reply.text, annotations: [], logprobs: [] }] };
}

/**
 * The model's own count, or an estimate of it; none for a reply that wrote nothing and got no count
 * (stopped or failed before its first piece), which the usage counts for nothing either.
 */
function usageOf(view: ResponseView): Body<typeof out.openAiResponse>['usage'] {
  if (view.reply.status === 'in_progress') return null;
  const counted = view.reply.metadata.usage as { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown } | undefined;
  if (counted === undefined && view.reply.text === '') return null;
  const whole = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null);
  const input = whole(counted?.prompt_tokens) ?? view.inputTokens;
  const output = whole(counted?.completion_tokens) ?? estimateTokens(view.reply.text);
  return { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: whole(counted?.total_tokens) ?? input + output };
}

/** A response: its reply, and what its request said (a reply of the native API: the defaults). */
export function responseJson(view: ResponseView): Body<typeof out.openAiResponse> {
  const { reply, record } = view;
  const { status, error, incomplete } = outcomeOf(reply);
  return {
    id: reply.messageId,
    object: 'response',
    created_at: unix(reply.createdAt),
    status,
    model: typeof reply.metadata.model === 'string' ? reply.metadata.model : (record?.model ?? 'unknown'),
    output: reply.text === '' ? [] : [outputItem(reply)],
    usage: usageOf(view),
    conversation: view.conversationId === null ? null : { id: view.conversationId },
    previous_response_id: record?.previousResponseId ?? null,
    instructions: record?.instructions ?? null,
    metadata: record?.metadata ?? {},
    background: record?.background ?? false,
    error,
    incomplete_details: incomplete,
    max_output_tokens: record?.maxOutputTokens ?? null,
    temperature: record?.temperature ?? null,
    store: view.conversationId !== null,
    parallel_tool_calls: false,
    tool_choice: 'none',
    tools: [],
    text: { format: { type: 'text' } },
    top_p: null,
    truncation: 'disabled',
  };
}

/** A stored message as an item: an assistant's text is `output_text`, anyone else's `input_text`. */
export function itemJson(message: Message): Body<typeof out.openAiItem> {
  const role = message.role === 'system' && message.metadata.openai_role === 'developer' ? 'developer' : message.role;
  const content = message.role === 'assistant' ? outputItem(message).content : [{ type: 'input_text' as const, text: message.text }];
  return { type: 'message', id: message.messageId, status: itemStatus(message), role, content };
}

/** A page of items, in OpenAI's list shape. */
export function itemListJson(page: { items: Message[]; hasMore: boolean }): Body<typeof out.openAiItemList> {
  return {
    object: 'list',
    data: page.items.map(itemJson),
    first_id: page.items[0]?.messageId ?? null,
    last_id: page.items.at(-1)?.messageId ?? null,
    has_more: page.hasMore,
  };
}

export function deletedResponseJson(responseId: string): Body<typeof out.openAiDeletedResponse> {
  return { id: responseId, object: 'response', deleted: true };
}

export function openAiConversationJson(view: ConversationView): Body<typeof out.openAiConversation> {
  return { id: view.conversation.conversationId, object: 'conversation', created_at: unix(view.conversation.createdAt), metadata: view.metadata };
}

export function deletedConversationJson(conversationId: string): Body<typeof out.openAiDeletedConversation> {
  return { id: conversationId, object: 'conversation.deleted', deleted: true };
}

export function modelJson(model: { id: string; createdAt: Date }): Body<typeof out.openAiModel> {
  return { id: model.id, object: 'model', created: unix(model.createdAt), owned_by: 'assistant-backend' };
}

export function modelListJson(models: { id: string; createdAt: Date }[]): Body<typeof out.openAiModelList> {
  return { object: 'list', data: models.map(modelJson) };
}

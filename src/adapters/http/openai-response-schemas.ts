import { z } from 'zod';

/**
 * Response bodies of OpenAI's Responses and Conversations APIs, as zod schemas: the presenters
 * are typed by them (openai-presenters.ts) and /openapi.json is generated from them.
 */
const unix = z.number().int().min(0).meta({ description: 'Unix time, in seconds' });
const metadata = z.record(z.string(), z.string()).meta({ description: 'at most 16 pairs; keys ≤ 64 and values ≤ 512 characters' });

export const RESPONSE_STATUSES = ['queued', 'in_progress', 'completed', 'incomplete', 'cancelled', 'failed'] as const;
const ITEM_STATUSES = ['in_progress', 'completed', 'incomplete'] as const;

export const outputText = z
  .object({ type: z.literal('output_text'), text: z.string(), annotations: z.array(z.never()), logprobs: z.array(z.never()) })
  .meta({ id: 'OpenAiOutputText' });
const inputText = z.object({ type: z.literal('input_text'), text: z.string() }).meta({ id: 'OpenAiInputText' });

/** A message item: the reply (output) or any message of a conversation. */
export const openAiItem = z
  .object({
    type: z.literal('message'),
    id: z.string().meta({ description: 'the message id (the same in the native API)' }),
    status: z.enum(ITEM_STATUSES),
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: z.array(z.union([inputText, outputText])).meta({ description: 'one part: `output_text` for the assistant, `input_text` otherwise' }),
  })
  .meta({ id: 'OpenAiMessageItem' });

export const openAiResponse = z
  .object({
    id: z.string().meta({ description: "the reply's message id (the same in the native API)" }),
    object: z.literal('response'),
    created_at: unix,
    status: z.enum(RESPONSE_STATUSES),
    model: z.string().meta({ description: 'the model that answered' }),
    output: z.array(openAiItem).meta({ description: 'the reply, once it has text' }),
    usage: z
      .object({
        input_tokens: z.number().int().min(0),
        input_tokens_details: z.object({ cached_tokens: z.number().int().min(0) }),
        output_tokens: z.number().int().min(0),
        output_tokens_details: z.object({ reasoning_tokens: z.number().int().min(0) }),
        total_tokens: z.number().int().min(0),
      })
      .nullable()
      .meta({ description: "the model's own count, or an estimate where it gives none; null while in progress" }),
    conversation: z.object({ id: z.string() }).nullable().meta({ description: 'the conversation it belongs to; null only with store: false' }),
    previous_response_id: z.string().nullable(),
    instructions: z.string().nullable(),
    metadata,
    background: z.boolean(),
    error: z.object({ code: z.string(), message: z.string() }).nullable().meta({ description: 'why it failed (status failed)' }),
    incomplete_details: z.object({ reason: z.string() }).nullable().meta({ description: 'why it is incomplete: max_output_tokens, content_filter' }),
    max_output_tokens: z.number().int().nullable(),
    temperature: z.number().nullable(),
    store: z.boolean(),
    parallel_tool_calls: z.boolean(),
    tool_choice: z.literal('none'),
    tools: z.array(z.never()),
    text: z.object({ format: z.object({ type: z.literal('text') }) }),
    top_p: z.null(),
    truncation: z.literal('disabled'),
  })
  .meta({ id: 'OpenAiResponse' });

const list = <T extends z.ZodType>(item: T, id: string) =>
  z
    .object({
      object: z.literal('list'),
      data: z.array(item),
      first_id: z.string().nullable(),
      last_id: z.string().nullable(),
      has_more: z.boolean(),
    })
    .meta({ id });

export const openAiItemList = list(openAiItem, 'OpenAiItemList');

export const openAiDeletedResponse = z.object({ id: z.string(), object: z.literal('response'), deleted: z.literal(true) }).meta({ id: 'OpenAiDeletedResponse' });

export const openAiConversation = z
  .object({ id: z.string().meta({ description: 'the conversation_id of the native API' }), object: z.literal('conversation'), created_at: unix, metadata })
  .meta({ id: 'OpenAiConversation' });

export const openAiDeletedConversation = z
  .object({ id: z.string(), object: z.literal('conversation.deleted'), deleted: z.literal(true) })
  .meta({ id: 'OpenAiDeletedConversation' });

export const openAiModel = z.object({ id: z.string(), object: z.literal('model'), created: unix, owned_by: z.string() }).meta({ id: 'OpenAiModel' });

export const openAiModelList = z.object({ object: z.literal('list'), data: z.array(openAiModel) }).meta({ id: 'OpenAiModelList' });

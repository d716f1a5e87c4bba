import { z } from 'zod';
import type { ContextMessage } from '../../application/replies/start-turn.js';
import { atMostCodePoints, hasUnstorableCharacters, UNSTORABLE_RULE } from '../../domain/text.js';
import { clientId, says, storable } from './schemas.js';

/**
 * Request schemas of OpenAI's Responses and Conversations APIs, as OpenAI defines them, for what
 * this service does: text messages in and out. Fields it has no use for (`reasoning`, `user`,
 * `top_p`, `include`...) are accepted and ignored; ones that ask for what it cannot do (tools,
 * stored prompts, structured output, images, files) are a 400 naming them.
 */

/** The roles of OpenAI's message items; `developer` is stored as a system message. */
export const ITEM_ROLES = ['user', 'system', 'developer', 'assistant'] as const;
const TEXT_PARTS = ['input_text', 'output_text'];
/** OpenAI's bounds on `metadata`. */
export const METADATA_BOUNDS = { pairs: 16, key: 64, value: 512 } as const;
/** OpenAI's bound on the items of one request to the Conversations API. */
export const MAX_ITEMS_PER_REQUEST = 20;
/** Input items of one response, at most. */
export const MAX_INPUT_ITEMS = 1000;

const absent = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);
const object = <T extends z.ZodRawShape>(shape: T) => z.object(shape, { error: 'must be a JSON object' });
const problem = (ctx: z.RefinementCtx, path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });

const METADATA_RULE = `must be an object of at most ${METADATA_BOUNDS.pairs} string values, keys of at most ${METADATA_BOUNDS.key} characters and values of at most ${METADATA_BOUNDS.value}`;

export const stringMetadata = () =>
  z.record(z.string(), z.string(says(METADATA_RULE)), says(METADATA_RULE)).superRefine((value, ctx) => {
    const entries = Object.entries(value);
    if (entries.length > METADATA_BOUNDS.pairs) return problem(ctx, [], METADATA_RULE);
    for (const [key, text] of entries) {
      if (!atMostCodePoints(key, METADATA_BOUNDS.key) || !atMostCodePoints(text, METADATA_BOUNDS.value)) return problem(ctx, [key], METADATA_RULE);
      if (hasUnstorableCharacters(key) || hasUnstorableCharacters(text)) return problem(ctx, [key], UNSTORABLE_RULE);
    }
  });

/** One input item as a message to store, or the problems found in it (added to `ctx` at `path`). */
function messageOf(item: unknown, path: (string | number)[], maxTextLength: number, ctx: z.RefinementCtx): ContextMessage | null {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    problem(ctx, path, 'must be a message item: an object with role and content');
    return null;
  }
  const { type, role, content } = item as Record<string, unknown>;
  if (type !== undefined && type !== 'message') {
    problem(ctx, path, `${typeof type === 'string' ? `${type} items are` : 'this item type is'} not supported; only message items (role and content)`);
    return null;
  }
  if (!(ITEM_ROLES as readonly unknown[]).includes(role)) {
    problem(ctx, [...path, 'role'], role === undefined ? 'is required' : `must be one of ${ITEM_ROLES.join(', ')}`);
    return null;
  }
  let text: string;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    const texts = content.map((part, index) => {
      const partType = typeof part === 'object' && part !== null ? (part as Record<string, unknown>).type : undefined;
      if (!TEXT_PARTS.includes(partType as string)) {
        const named = typeof partType === 'string' ? `${partType} parts are` : 'this part is';
        problem(ctx, [...path, 'content', index], `${named} not supported; only input_text and output_text`);
        return null;
      }
      const partText = (part as Record<string, unknown>).text;
      if (typeof partText !== 'string') problem(ctx, [...path, 'content', index, 'text'], 'must be a string');
      return typeof partText === 'string' ? partText : null;
    });
    if (texts.some((t) => t === null)) return null;
    text = texts.join('\n');
  } else {
    problem(ctx, [...path, 'content'], content === undefined ? 'is required' : 'must be a string or a list of input_text parts');
    return null;
  }
  const at = [...path, 'content'];
  if (text.trim() === '') return (problem(ctx, at, 'must hold some text'), null);
  if (!atMostCodePoints(text, maxTextLength)) return (problem(ctx, at, `must be at most ${maxTextLength} characters`), null);
  if (hasUnstorableCharacters(text)) return (problem(ctx, at, UNSTORABLE_RULE), null);
  return role === 'developer' ? { role: 'system', text, metadata: { openai_role: 'developer' } } : { role: role as ContextMessage['role'], text };
}

/** A list of message items, each read by `messageOf`. */
function itemList(maxTextLength: number, bounds: { min: number; max: number }, field: string) {
  const rule = `must be a list of ${bounds.min}..${bounds.max} message items`;
  return z
    .array(z.unknown(), says(rule))
    .min(bounds.min, rule)
    .max(bounds.max, rule)
    .transform((items, ctx) => {
      const messages = items.map((item, index) => messageOf(item, [index], maxTextLength, ctx));
      return messages.every((m) => m !== null) ? (messages as ContextMessage[]) : z.NEVER;
    })
    .meta({
      description: `${field}: message items \`{"type"?: "message", "role": "user" | "system" | "developer" | "assistant", "content": string | [{"type": "input_text" | "output_text", "text"}]}\`; other item or part types are a 400 naming them`,
    });
}

/** `input`: a string (one user message) or a list of message items whose last is the user's. */
function responseInput(maxTextLength: number) {
  const rule = 'must be a non-empty string or a list of message items';
  return z
    .union([z.string(), z.array(z.unknown())], says(rule))
    .transform((input, ctx): ContextMessage[] => {
      if (typeof input === 'string') {
        if (input.trim() === '') return (problem(ctx, [], rule), z.NEVER);
        if (!atMostCodePoints(input, maxTextLength)) return (problem(ctx, [], `must be at most ${maxTextLength} characters`), z.NEVER);
        if (hasUnstorableCharacters(input)) return (problem(ctx, [], UNSTORABLE_RULE), z.NEVER);
        return [{ role: 'user', text: input }];
      }
      if (input.length === 0 || input.length > MAX_INPUT_ITEMS) return (problem(ctx, [], `must hold 1..${MAX_INPUT_ITEMS} items`), z.NEVER);
      const messages = input.map((item, index) => messageOf(item, [index], maxTextLength, ctx));
      if (messages.some((m) => m === null)) return z.NEVER;
      const last = input.length - 1;
      if (messages[last]!.role !== 'user') return (problem(ctx, [last, 'role'], 'must be user: the last input item is the message to answer'), z.NEVER);
      return messages as ContextMessage[];
    })
    .meta({
      description:
        'A string (one user message), or a list of message items `{"type"?: "message", "role": "user" | "system" | "developer" | "assistant", "content": string | [{"type": "input_text" | "output_text", "text"}]}` whose last is the user\'s; other item or part types are a 400 naming them in `param`',
    });
}

const unsupported = (message: string) =>
  z
    .unknown()
    .optional()
    .superRefine((value, ctx) => {
    if (value !== undefined && value !== null) problem(ctx, [], message);
  });

export function openAiRequestSchemas({ maxTextLength }: { maxTextLength: number }) {
  const listQuery = {
    limit: absent(z.string().regex(/^\d{1,3}$/, 'must be an integer from 1 to 100').transform(Number).pipe(z.number().min(1, 'must be an integer from 1 to 100').max(100, 'must be an integer from 1 to 100'))).transform((v) => v ?? 20),
    order: absent(z.enum(['asc', 'desc'], says('must be "asc" or "desc"'))).transform((v) => v ?? ('desc' as const)),
    after: absent(clientId()),
  };
  return {
    createResponse: object({
      // Required, as OpenAI's own (the configured model answers whichever is named).
      model: z.string(says('must be a string naming a model')).min(1, 'must be a string naming a model').max(256, 'must be at most 256 characters').superRefine(storable),
      input: responseInput(maxTextLength),
      instructions: absent(z.string(says('must be a string')).refine((s) => atMostCodePoints(s, maxTextLength), `must be at most ${maxTextLength} characters`).superRefine(storable)),
      previous_response_id: absent(clientId()),
      conversation: absent(z.union([clientId(), z.object({ id: clientId() }).transform(({ id }) => id)], says('must be a conversation id or {"id": …}'))),
      stream: absent(z.boolean(says('must be true or false'))).transform((v) => v ?? false),
      background: absent(z.boolean(says('must be true or false'))).transform((v) => v ?? false),
      store: absent(z.boolean(says('must be true or false'))).transform((v) => v ?? true),
      metadata: absent(stringMetadata()).transform((v) => v ?? {}),
      max_output_tokens: absent(z.number(says('must be an integer from 1 to 1000000')).int('must be an integer from 1 to 1000000').min(1, 'must be an integer from 1 to 1000000').max(1_000_000, 'must be an integer from 1 to 1000000')),
      temperature: absent(z.number(says('must be a number from 0 to 2')).min(0, 'must be a number from 0 to 2').max(2, 'must be a number from 0 to 2')),
      tools: absent(z.array(z.unknown(), says('must be a list')).max(0, 'are not supported: this service answers with text only')),
      prompt: unsupported('stored prompts are not supported'),
      text: absent(
        z.looseObject({ format: absent(z.looseObject({ type: z.literal('text', says('only {"type": "text"} is supported')) })) }, says('must be an object')),
      ),
    }).superRefine((body, ctx) => {
      if (body.previous_response_id !== undefined && body.conversation !== undefined) problem(ctx, ['conversation'], 'must not be given together with previous_response_id');
      if (body.background && !body.store) problem(ctx, ['background'], 'requires store: true (a background response is kept to be read later)');
    }),
    retrieveResponse: z.object({
      stream: absent(z.enum(['true', 'false'], says('must be true or false'))).transform((v) => v === 'true'),
      starting_after: absent(z.string().regex(/^\d{1,15}$/, 'must be a whole number from 0').transform(Number)),
    }),
    responsePath: z.object({ response_id: clientId() }),
    conversationPath: z.object({ conversation_id: clientId() }),
    itemPath: z.object({ conversation_id: clientId(), item_id: clientId() }),
    listQuery: z.object(listQuery),
    createConversation: object({
      items: absent(itemList(maxTextLength, { min: 0, max: MAX_ITEMS_PER_REQUEST }, 'items')).transform((v) => v ?? []),
      metadata: absent(stringMetadata()).transform((v) => v ?? {}),
    }),
    // The SDK's own type allows null: the metadata is then cleared.
    updateConversation: object({ metadata: stringMetadata().nullable().transform((v) => v ?? {}) }),
    addItems: object({ items: itemList(maxTextLength, { min: 1, max: MAX_ITEMS_PER_REQUEST }, 'items') }),
  };
}

export type OpenAiRequestSchemas = ReturnType<typeof openAiRequestSchemas>;

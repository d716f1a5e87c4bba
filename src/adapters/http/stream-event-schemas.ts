import { TITLE_SOURCES } from '../../domain/conversation.js';
import { z } from 'zod';

/**
 * The `data:` of each event of a streamed reply (the contract's own protocol), as zod schemas:
 * the encoders are typed by them and /openapi.json lists them (components), so the two cannot
 * drift, and the demo page's types are generated from them.
 */
const ids = {
  conversation_id: z.string(),
  user_message_id: z.string().nullable().meta({ description: 'the user message it answers; null for an assistant message stored otherwise (resumed)' }),
  message_id: z.string().meta({ description: "the reply's id" }),
};

export const streamStart = z.object(ids).meta({ description: 'The data of `event: start`' });

export const streamDelta = z.object({ text: z.string() }).meta({ description: 'The data of `event: delta`: the next piece of the reply' });

export const streamAudio = z
  .object({
    index: z.number().int().min(0).meta({ description: 'the sentence, counted from 0' }),
    text: z.string(),
    format: z.string().meta({ description: 'the `format` the request asked for (`mp3` or `wav`)' }),
    audio: z.string().meta({ description: 'a complete file of that format, base64' }),
  })
  .meta({ description: 'The data of `event: audio`: one spoken sentence of the reply' });

export const streamDone = z
  .object({
    response: z.string().meta({ description: 'the whole reply: the deltas joined' }),
    status: z.literal('ok'),
    ...ids,
    finish_reason: z.string(),
  })
  .meta({ description: 'The data of `event: done`: the reply as stored' });

export const streamTitle = z
  .object({
    conversation_id: z.string(),
    title: z.string(),
    title_source: z.enum(TITLE_SOURCES),
  })
  .meta({ description: "The data of `event: title`: the conversation's new name, sent before `done` in its first turn's stream" });

export const streamError = z
  .object({ detail: z.string(), status: z.literal('error') })
  .meta({ description: 'The data of `event: error`, sent instead of `done`' });

/** As the document names them, under components/schemas. */
export const STREAM_EVENT_SCHEMAS = {
  StreamStart: streamStart,
  StreamDelta: streamDelta,
  StreamAudio: streamAudio,
  StreamDone: streamDone,
  StreamTitle: streamTitle,
  StreamError: streamError,
};

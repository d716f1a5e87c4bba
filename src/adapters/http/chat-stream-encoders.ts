import type { ChatReplyStream } from '../../application/replies/stream-chat-reply.js';
import type { z } from 'zod';
import type { SseFrame } from './sse-writer.js';
import type { streamDelta, streamDone, streamError, streamStart, streamTitle } from './stream-event-schemas.js';
import type { TitleSource } from '../../domain/conversation.js';
import { RequestValidationError } from './validate.js';

export const STREAM_PROTOCOLS = ['events', 'ui-message'] as const;
export type StreamProtocol = (typeof STREAM_PROTOCOLS)[number];

/**
 * The protocol a request names in its `X-Stream-Protocol` header (any case, spaces around it
 * ignored), or undefined when it names none. One it does not know is a 400.
 */
export function requestedStreamProtocol(header: string): StreamProtocol | undefined {
  const protocol = header.trim().toLowerCase();
  if (protocol === '') return undefined;
  if (!(STREAM_PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new RequestValidationError([{ field: 'X-Stream-Protocol', message: `must be one of ${STREAM_PROTOCOLS.join(', ')}` }]);
  }
  return protocol as StreamProtocol;
}

export type StreamStart = Pick<ChatReplyStream, 'conversationId' | 'userMessageId' | 'messageId'>;
export interface StreamTitle {
  conversationId: string;
  title: string;
  titleSource: TitleSource;
}

export interface StreamDone {
  response: string;
  messageId: string;
  finishReason: string;
}

/**
 * How the events of a streamed reply look on the wire. Every frame carries the SSE id the
 * contract gives it: the number of code points of the reply the client holds after it.
 */
export interface ChatStreamEncoder {
  headers: Record<string, string>;
  start(start: StreamStart, position: number): SseFrame[];
  delta(text: string, position: number): SseFrame[];
  done(start: StreamStart, done: StreamDone, position: number): SseFrame[];
  /** The conversation's name, made with its first reply (before `done`). */
  title(title: StreamTitle, position: number): SseFrame[];
  error(detail: string, position: number): SseFrame[];
}

const json = (value: unknown) => JSON.stringify(value);
/** The data of an event of the contract, typed by its schema in /openapi.json. */
const data = <S extends z.ZodType>(value: z.input<S>) => JSON.stringify(value);
const ids = (start: StreamStart) => ({ conversation_id: start.conversationId, user_message_id: start.userMessageId, message_id: start.messageId });

/** The contract's own events: `start`, `delta`..., then `done` or `error`. */
export const contractEncoder = (): ChatStreamEncoder => ({
  headers: {},
  start: (s, position) => [{ event: 'start', id: String(position), data: data<typeof streamStart>(ids(s)) }],
  delta: (text, position) => [{ event: 'delta', id: String(position), data: data<typeof streamDelta>({ text }) }],
  done: (s, d, position) => [
    {
      event: 'done',
      id: String(position),
      data: data<typeof streamDone>({
        response: d.response,
        status: 'ok',
        conversation_id: s.conversationId,
        message_id: d.messageId,
        user_message_id: s.userMessageId,
        finish_reason: d.finishReason,
      }),
    },
  ],
  title: (t, position) => [{ event: 'title', id: String(position), data: data<typeof streamTitle>({ conversation_id: t.conversationId, title: t.title, title_source: t.titleSource }) }],
  error: (detail, position) => [{ event: 'error', id: String(position), data: data<typeof streamError>({ detail, status: 'error' }) }],
});

/** The encoder of a protocol. */
export const encoderOf = (protocol: StreamProtocol): ChatStreamEncoder => (protocol === 'ui-message' ? uiMessageEncoder() : contractEncoder());

/** The Vercel AI SDK's finish reasons; anything else a model reports is "other". */
const UI_FINISH_REASONS: Record<string, string> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'content-filter',
  tool_calls: 'tool-calls',
  error: 'error',
};

/**
 * The Vercel AI SDK "UI message stream" (v1), which `useChat` reads: unnamed `data:` events
 * `start`, `text-start`, `text-delta`..., `text-end`, `finish` (or `error`), then `[DONE]`.
 * Our ids travel in `messageMetadata`; the SSE ids are the contract's.
 */
export const uiMessageEncoder = (): ChatStreamEncoder => {
  let textId = 'text';
  const frame = (value: unknown, position: number): SseFrame => ({ id: String(position), data: typeof value === 'string' ? value : json(value) });
  return {
    headers: { 'x-vercel-ai-ui-message-stream': 'v1' },
    start: (s, position) => {
      textId = `text-${s.messageId}`;
      return [frame({ type: 'start', messageId: s.messageId, messageMetadata: ids(s) }, position), frame({ type: 'text-start', id: textId }, position)];
    },
    delta: (text, position) => [frame({ type: 'text-delta', id: textId, delta: text }, position)],
    // A data part of the AI SDK's own kind (`data-<name>`), transient: not kept in the message.
    title: (t, position) => [frame({ type: 'data-title', data: { conversation_id: t.conversationId, title: t.title, title_source: t.titleSource }, transient: true }, position)],
    done: (s, d, position) => [
      frame({ type: 'text-end', id: textId }, position),
      frame(
        {
          type: 'finish',
          finishReason: UI_FINISH_REASONS[d.finishReason] ?? 'other',
          messageMetadata: { ...ids(s), message_id: d.messageId, finish_reason: d.finishReason },
        },
        position,
      ),
      frame('[DONE]', position),
    ],
    error: (detail, position) => [frame({ type: 'error', errorText: detail }, position), frame('[DONE]', position)],
  };
};

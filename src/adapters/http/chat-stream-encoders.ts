import type { ChatReplyStream } from '../../application/use-cases/stream-chat-reply.js';
import type { SseFrame } from './sse-writer.js';

export const STREAM_PROTOCOLS = ['events', 'ui-message'] as const;
export type StreamProtocol = (typeof STREAM_PROTOCOLS)[number];

export type StreamStart = Pick<ChatReplyStream, 'conversationId' | 'userMessageId' | 'messageId'>;
export interface StreamDone {
  response: string;
  messageId: string;
  finishReason: string;
}

/** How the events of a streamed reply look on the wire. */
export interface ChatStreamEncoder {
  headers: Record<string, string>;
  start(start: StreamStart): SseFrame[];
  delta(text: string): SseFrame[];
  done(start: StreamStart, done: StreamDone): SseFrame[];
  error(detail: string): SseFrame[];
}

const json = (value: unknown) => JSON.stringify(value);

/** The contract's own events: `start`, `delta`..., then `done` or `error`. */
export const contractEncoder = (): ChatStreamEncoder => ({
  headers: {},
  start: (s) => [{ event: 'start', data: json({ conversation_id: s.conversationId, user_message_id: s.userMessageId, message_id: s.messageId }) }],
  delta: (text) => [{ event: 'delta', data: json({ text }) }],
  done: (s, d) => [
    {
      event: 'done',
      data: json({
        response: d.response,
        status: 'ok',
        conversation_id: s.conversationId,
        message_id: d.messageId,
        user_message_id: s.userMessageId,
        finish_reason: d.finishReason,
      }),
    },
  ],
  error: (detail) => [{ event: 'error', data: json({ detail, status: 'error' }) }],
});

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
 * Our ids travel in `messageMetadata`.
 */
export const uiMessageEncoder = (): ChatStreamEncoder => {
  let textId = 'text';
  return {
    headers: { 'x-vercel-ai-ui-message-stream': 'v1' },
    start: (s) => {
      textId = `text-${s.messageId}`;
      const messageMetadata = { conversation_id: s.conversationId, user_message_id: s.userMessageId, message_id: s.messageId };
      return [{ data: json({ type: 'start', messageId: s.messageId, messageMetadata }) }, { data: json({ type: 'text-start', id: textId }) }];
    },
    delta: (text) => [{ data: json({ type: 'text-delta', id: textId, delta: text }) }],
    done: (s, d) => [
      { data: json({ type: 'text-end', id: textId }) },
      {
        data: json({
          type: 'finish',
          finishReason: UI_FINISH_REASONS[d.finishReason] ?? 'other',
          messageMetadata: { conversation_id: s.conversationId, user_message_id: s.userMessageId, message_id: d.messageId, finish_reason: d.finishReason },
        }),
      },
      { data: '[DONE]' },
    ],
    error: (detail) => [{ data: json({ type: 'error', errorText: detail }) }, { data: '[DONE]' }],
  };
};

import type { Message } from '../../domain/message.js';
import type { ResponseEnding, ResponseRecord } from '../ports/response-repository.js';

/** What a response shows of its reply: a stored Message, or the reply of a response not stored. */
export type ReplyState = Pick<Message, 'messageId' | 'text' | 'createdAt' | 'status' | 'finishReason' | 'metadata'>;

/**
 * A response of OpenAI's Responses API: an assistant reply (its id is the response's) and, when
 * the Responses API made it, the record of its request. Presenters turn it into OpenAI's shape.
 */
export interface ResponseView {
  reply: ReplyState;
  record: ResponseRecord | null;
  /** The conversation it belongs to; null for a response that was not stored (`store: false`). */
  conversationId: string | null;
  /** Its question's model input, estimated, for usage where the model counts none (0 when unknown). */
  inputTokens: number;
}

export type ResponseEvent =
  /** Text after the listener's position; `position` is where it stands afterwards (code points). */
  | { type: 'text'; text: string; position: number }
  /** The end: the response as it ended, and the failure behind a `failed` one (its detail is the error's message). */
  | { type: 'end'; view: ResponseView; failure?: unknown; position: number };

/** A response as a stream: how it looked when it began, then its text from a position, then its end. */
export interface ResponseStream {
  /** The response in progress, without text: what `response.created` shows. */
  begun: ResponseView;
  events(from: number, signal: AbortSignal): AsyncGenerator<ResponseEvent>;
  /** Stops the response (its reply, wherever it is produced); absent for one that is not stored. */
  cancel?: () => void;
}

/** The view of a stored reply. */
export function viewOf(reply: ReplyState & { conversationId: string }, record: ResponseRecord | null): ResponseView {
  return { reply, record, conversationId: reply.conversationId, inputTokens: record?.inputTokens ?? 0 };
}

/** The view of a reply removed before its first piece (its ending): as it ended, without text. */
export function endedView(ending: ResponseEnding): ResponseView {
  const { responseId: messageId, createdAt, finishReason, metadata, record, conversationId } = ending;
  return { reply: { messageId, text: '', createdAt, status: 'completed', finishReason, metadata }, record, conversationId, inputTokens: record?.inputTokens ?? 0 };
}

/** A response that has ended, as a stream: its beginning, then its end. */
export function endedStream(view: ResponseView): ResponseStream {
  return {
    begun: begunView(view),
    async *events() {
      yield { type: 'end', view, position: 0 };
    },
  };
}

/** The response as it began: in progress, no text yet. */
export function begunView(view: ResponseView): ResponseView {
  const reply = view.reply;
  return {
    ...view,
    reply: { messageId: reply.messageId, text: '', createdAt: reply.createdAt, status: 'in_progress', finishReason: null, metadata: { model: reply.metadata.model } },
  };
}

/** A reply stopped before its first piece is removed; its response is shown cancelled, without text. */
export function removedView(view: ResponseView): ResponseView {
  return { ...view, reply: { ...begunView(view).reply, status: 'completed', finishReason: 'cancelled' } };
}

/** A reply that failed and was not kept (it had no text, or its end could not be stored): failed, with `detail`. */
export function failedView(view: ResponseView, detail: string): ResponseView {
  const begun = begunView(view).reply;
  return { ...view, reply: { ...begun, status: 'completed', finishReason: 'error', metadata: { ...begun.metadata, error: detail } } };
}

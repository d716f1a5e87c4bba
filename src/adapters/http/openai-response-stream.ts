import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { ResponseStream, ResponseView } from '../../application/responses/response-view.js';
import { responseJson } from './openai-presenters.js';
import { openAiFailure } from './openai-path-errors.js';
import { logUnexpected } from './middleware/error-handler.js';
import { SseWriter, watchClient, type SseFrame } from './sse-writer.js';

/**
 * A response as OpenAI's stream events. Sequence numbers follow from the reply's length, so every
 * replay of a response, on any instance, numbers its events alike: `response.created` 0,
 * `response.in_progress` 1; with the reply's first piece (as OpenAI announces an output item once
 * the model begins it) `response.output_item.added` 2 and `response.content_part.added` 3; a text
 * delta the number of code points of the reply after it, plus 3; at the end, with L code points in
 * all, `response.output_text.done` L + 4, `response.content_part.done` L + 5,
 * `response.output_item.done` L + 6 and the last event (`response.completed`,
 * `response.incomplete` for an incomplete or cancelled response, `response.failed`) L + 7. A
 * response that ends without text has no output item, and its stream announces none: its last
 * event is 2, right after `response.in_progress`.
 * `starting_after` N sends only the events numbered above N: the text from code point N - 3 on.
 */
export const PRELUDE = 4;
const DELTA_BASE = PRELUDE - 1;
/** The number of the last event of a response without text. */
const BARE_END = 2;

/** The code point a stream starting after event `startingAfter` resumes from. */
export const positionAfter = (startingAfter: number | null): number => (startingAfter === null ? 0 : Math.max(0, startingAfter - DELTA_BASE));

const TERMINAL: Record<string, string> = { completed: 'response.completed', failed: 'response.failed', incomplete: 'response.incomplete', cancelled: 'response.incomplete' };

export interface ResponsePumpOptions {
  logger: Logger;
  pingIntervalMs: number;
  /** Only events numbered above this are sent (null: all). */
  startingAfter: number | null;
  /** Called when the client goes away before the end (STREAM_ON_DISCONNECT=cancel). */
  onDisconnect?: () => void;
}

/** The frames of a stream, numbered; only those above `after` are kept. */
class Numbered {
  constructor(private readonly after: number) {}

  frame(sequence: number, type: string, fields: Record<string, unknown>): SseFrame[] {
    return sequence > this.after ? [{ event: type, data: JSON.stringify({ type, ...fields, sequence_number: sequence }) }] : [];
  }
}

const part = (text: string) => ({ type: 'output_text', text, annotations: [], logprobs: [] });

function beginningFrames(events: Numbered, begun: ResponseView): SseFrame[] {
  const response = responseJson(begun);
  return [...events.frame(0, 'response.created', { response }), ...events.frame(1, 'response.in_progress', { response })];
}

/** The reply's message item and its part, still empty: announced once the reply has text. */
function announcingFrames(events: Numbered, begun: ResponseView): SseFrame[] {
  const item = { id: begun.reply.messageId, type: 'message', status: 'in_progress', role: 'assistant', content: [] };
  const at = { item_id: begun.reply.messageId, output_index: 0 };
  return [
    ...events.frame(2, 'response.output_item.added', { output_index: 0, item }),
    ...events.frame(3, 'response.content_part.added', { ...at, content_index: 0, part: part('') }),
  ];
}

function closingFrames(events: Numbered, end: ResponseView, length: number): SseFrame[] {
  const response = responseJson(end);
  const terminal = TERMINAL[response.status] ?? 'response.completed';
  if (length === 0) return events.frame(BARE_END, terminal, { response });
  const text = end.reply.text;
  const at = { item_id: end.reply.messageId, output_index: 0, content_index: 0 };
  const item = response.output[0] ?? { id: end.reply.messageId, type: 'message', status: 'incomplete', role: 'assistant', content: [part(text)] };
  return [
    ...events.frame(length + PRELUDE, 'response.output_text.done', { ...at, text, logprobs: [] }),
    ...events.frame(length + PRELUDE + 1, 'response.content_part.done', { ...at, part: part(text) }),
    ...events.frame(length + PRELUDE + 2, 'response.output_item.done', { output_index: 0, item }),
    ...events.frame(length + PRELUDE + 3, terminal, { response }),
  ];
}

/**
 * Sends a response as `text/event-stream`: its beginning, the text after the client's position
 * (one delta per piece, as it comes; the item announced with the first), the closing events. A
 * fault of the service itself ends the stream with OpenAI's `error` event.
 */
export async function pumpResponse(ctx: Context, stream: ResponseStream, options: ResponsePumpOptions): Promise<void> {
  const client = watchClient(ctx.res, options.onDisconnect);
  const sse = SseWriter.open(ctx, {}, options.pingIntervalMs);
  const events = new Numbered(options.startingAfter ?? -1);
  /** The number of the last event made (sent, or held by the client). */
  let sequence = 1;
  const itemId = stream.begun.reply.messageId;
  /** The item's announcement, made once, before the first text or, for a client past the text, before the end. */
  const announce = (length: number): SseFrame[] => {
    if (sequence >= DELTA_BASE || length === 0) return [];
    sequence = DELTA_BASE;
    return announcingFrames(events, stream.begun);
  };
  try {
    await sse.send(beginningFrames(events, stream.begun));
    for await (const event of stream.events(positionAfter(options.startingAfter), client.signal)) {
      if (event.type === 'text') {
        const announcing = announce(event.position);
        sequence = DELTA_BASE + event.position;
        await sse.send([...announcing, ...events.frame(sequence, 'response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta: event.text, logprobs: [] })]);
        continue;
      }
      client.ended();
      if (event.failure !== undefined) logFailure(ctx, options.logger, event.failure);
      await sse.send([...announce(event.position), ...closingFrames(events, event.view, event.position)]);
    }
  } catch (error) {
    client.ended();
    const failure = openAiFailure(error);
    if (failure.unexpected) logUnexpected(options.logger, ctx, error);
    const { message, code, param } = failure.body.error;
    await sse.send([{ event: 'error', data: JSON.stringify({ type: 'error', code, message, param, sequence_number: sequence + 1 }) }]);
  } finally {
    client.release();
    sse.end();
  }
}

/** A reply that failed is reported in its `response.failed`; an unexpected fault behind it is logged too. */
function logFailure(ctx: Context, logger: Logger, failure: unknown): void {
  if (openAiFailure(failure).unexpected) logUnexpected(logger, ctx, failure);
}

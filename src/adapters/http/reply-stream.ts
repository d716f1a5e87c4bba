import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { ChatReplyStream } from '../../application/replies/stream-chat-reply.js';
import type { ChatStreamEncoder } from './chat-stream-encoders.js';
import { mapError } from './error-mapping.js';
import { logUnexpected } from './middleware/error-handler.js';
import type { SpeakingReply } from './reply-speech.js';
import { SseWriter, watchClient, type SseFrame } from './sse-writer.js';

export interface PumpOptions {
  logger: Logger;
  pingIntervalMs: number;
  /** Where the client stands (code points it holds): 0 for a new stream, else its resume point. */
  from: number;
  /** Called when the client goes away before the end (STREAM_ON_DISCONNECT=cancel stops the reply). */
  onDisconnect?: () => void;
  /** Speaks the reply as it streams: its audio frames go out between the deltas, all before `done`. */
  speaking?: (send: (frames: SseFrame[]) => void) => SpeakingReply;
}

/**
 * Sends a reply as an event stream: `start`, one `delta` with whatever is already there after
 * the client's position, the live deltas, then `done` or `error`; every event carries its SSE
 * id. Each read of the reply waits until the client took the last one in, so what a slow
 * client has not read yet stays in the reply's shared text, not in a buffer of its own.
 */
export async function pumpReply(ctx: Context, stream: ChatReplyStream, encoder: ChatStreamEncoder, options: PumpOptions): Promise<void> {
  const client = watchClient(ctx.res, options.onDisconnect);
  const sse = SseWriter.open(ctx, encoder.headers, options.pingIntervalMs);
  const speaking = options.speaking?.((frames) => void sse.send(frames));
  let position = options.from;
  try {
    await sse.send(encoder.start(stream, position));
    for await (const event of stream.events(options.from, client.signal)) {
      if (event.type === 'text') {
        position = event.position;
        const taken = sse.send(encoder.delta(event.text, position));
        if (taken) await taken;
        speaking?.delta(event.text);
        continue;
      }
      if (event.type === 'title') {
        await sse.send(encoder.title(event, event.position));
        continue;
      }
      client.ended();
      position = event.position;
      if (event.failure !== undefined) {
        await sse.send(encoder.error(detailOf(event.failure, ctx, options.logger), position));
      } else {
        if (!sse.gone) await speaking?.finish(); // every sentence's audio before done
        const done = { response: event.message?.text ?? '', messageId: stream.messageId, finishReason: event.finishReason };
        await sse.send(encoder.done(stream, done, position));
      }
    }
  } catch (error) {
    client.ended();
    await sse.send(encoder.error(detailOf(error, ctx, options.logger), position));
  } finally {
    speaking?.stop();
    client.release();
    sse.end();
  }
}

function detailOf(error: unknown, ctx: Context, logger: Logger): string {
  const mapped = mapError(error);
  if (mapped.unexpected) logUnexpected(logger, ctx, error);
  return mapped.body.detail;
}

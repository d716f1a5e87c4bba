import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { contractEncoder, uiMessageEncoder } from '../chat-stream-encoders.js';
import { mapError } from '../error-mapping.js';
import { logUnexpected } from '../middleware/error-handler.js';
import type { RequestSchemas } from '../schemas.js';
import { responseClosed, SseWriter } from '../sse-writer.js';
import { readStreamRequest, uiChatRequestSchema } from '../stream-request.js';
import { StreamChatReply } from '../../../application/use-cases/stream-chat-reply.js';
import type { Resolve } from '../resolve.js';

export interface StreamRouteOptions {
  logger: Logger;
  maxTextLength: number;
  /** Longest silence before a `: ping` comment (the contract says at most 15 s). */
  pingIntervalMs: number;
}

/**
 * POST /v1/chat/stream. Validation and the storing of the user's message happen first and fail
 * as ordinary JSON errors; after that the status is 200 and every failure is an `error` event.
 * A client that disconnects aborts the model call (the partial reply is stored as "cancelled").
 */
export function streamRoutes(router: Router, resolve: Resolve, schemas: RequestSchemas, json: Middleware, options: StreamRouteOptions): void {
  const uiSchema = uiChatRequestSchema(options.maxTextLength);

  router.post('/v1/chat/stream', json, async (ctx) => {
    const { input, protocol } = readStreamRequest(ctx.request.body, ctx.get('X-Stream-Protocol'), schemas, uiSchema);
    const stream = await resolve(StreamChatReply).execute(input);

    const client = new AbortController();
    const onClose = () => {
      if (!ctx.res.writableEnded) client.abort(); // writableFinished is also true after an HTTP/2 reset
    };
    ctx.res.once('close', onClose);
    if (responseClosed(ctx.res)) onClose();

    const encoder = protocol === 'ui-message' ? uiMessageEncoder() : contractEncoder();
    const sse = SseWriter.open(ctx, encoder.headers, options.pingIntervalMs);
    const fail = (error: unknown) => {
      const mapped = mapError(error);
      if (mapped.unexpected) logUnexpected(options.logger, ctx, error);
      sse.send(encoder.error(mapped.body.detail));
    };
    try {
      sse.send(encoder.start(stream));
      for await (const event of stream.events(client.signal)) {
        if (event.type === 'delta') sse.send(encoder.delta(event.text));
        else if (event.type === 'done') sse.send(encoder.done(stream, event));
        else fail(event.error);
      }
    } catch (error) {
      fail(error);
    } finally {
      sse.end();
    }
  });
}

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { replySpeech } from '../reply-speech.js';
import { StreamChatReply } from '../../../application/replies/stream-chat-reply.js';
import { encoderOf } from '../chat-stream-encoders.js';
import { pumpReply } from '../reply-stream.js';
import type { Resolve } from '../resolve.js';
import type { RequestSchemas } from '../schemas.js';
import { readStreamRequest, uiChatRequestSchema } from '../stream-request.js';

export interface StreamRouteOptions {
  logger: Logger;
  maxTextLength: number;
  /** Longest silence before a `: ping` comment (the contract says at most 15 s). */
  pingIntervalMs: number;
  /** What a client's disconnect does to the reply it started: nothing (it goes on), or stop it. */
  onDisconnect: 'continue' | 'cancel';
}

/**
 * POST /v1/chat/stream. Validation and the storing of the user's message happen first and fail
 * as ordinary JSON errors; after that the status is 200 and every failure is an `error` event.
 * The reply belongs to the service: a client that disconnects leaves it running (or, with
 * STREAM_ON_DISCONNECT=cancel, stops it) and can resume it (reply-routes.ts).
 */
export function streamRoutes(router: Router, resolve: Resolve, schemas: RequestSchemas, json: Middleware, options: StreamRouteOptions): void {
  const uiSchema = uiChatRequestSchema(options.maxTextLength);

  router.post('/v1/chat/stream', json, async (ctx) => {
    const { input, protocol } = readStreamRequest(ctx.request.body, ctx.get('X-Stream-Protocol'), schemas, uiSchema);
    const speech = await replySpeech(resolve, ctx.request.body);
    const stream = await resolve(StreamChatReply).execute(input);
    const cancel = options.onDisconnect === 'cancel' && stream.startedHere;
    await pumpReply(ctx, stream, encoderOf(protocol), {
      logger: options.logger,
      pingIntervalMs: options.pingIntervalMs,
      from: 0,
      onDisconnect: cancel ? () => stream.cancel() : undefined,
      speaking: speech ? (send) => speech.start(send, protocol, options.logger) : undefined,
    });
  });
}

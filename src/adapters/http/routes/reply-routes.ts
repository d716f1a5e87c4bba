import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { FindReplyInProgress } from '../../../application/replies/find-reply-in-progress.js';
import { ResumeChatReply } from '../../../application/replies/resume-chat-reply.js';
import { StopChatReply } from '../../../application/replies/stop-chat-reply.js';
import { encoderOf, requestedStreamProtocol, uiMessageEncoder } from '../chat-stream-encoders.js';
import { stoppedReplyJson } from '../presenters.js';
import { pumpReply } from '../reply-stream.js';
import type { Resolve } from '../resolve.js';
import { position, type RequestSchemas } from '../schemas.js';
import { parseRequest, RequestValidationError } from '../validate.js';

export interface ReplyRouteOptions {
  logger: Logger;
  pingIntervalMs: number;
}

/**
 * Replies after their first request: resume one (from the position the client holds, on any
 * instance), stop one, and the AI SDK's resume of a conversation's reply in progress.
 */
export function replyRoutes(router: Router, resolve: Resolve, schemas: RequestSchemas, json: Middleware, options: ReplyRouteOptions): void {
  router.get('/v1/chat/stream/:message_id', async (ctx) => {
    const { message_id: messageId } = parseRequest(schemas.replyPath, ctx.params, 'path');
    const query = parseRequest(schemas.resumeReply, ctx.query, 'query');
    const from = lastEventId(ctx) ?? query.after ?? 0;
    const stream = await resolve(ResumeChatReply).execute({ userId: query.user_id, messageId });
    await pumpReply(ctx, stream, encoderOf(requestedStreamProtocol(ctx.get('X-Stream-Protocol')) ?? 'events'), { ...options, from });
  });

  router.post('/v1/chat/stream/:message_id/stop', json, async (ctx) => {
    const { message_id: messageId } = parseRequest(schemas.replyPath, ctx.params, 'path');
    const body = parseRequest(schemas.stopReply, ctx.request.body);
    ctx.body = stoppedReplyJson(await resolve(StopChatReply).execute({ userId: body.user_id, messageId }));
  });

  router.get('/v1/chat/stream/:conversation_id/stream', async (ctx) => {
    const { conversation_id: conversationId } = parseRequest(schemas.conversationPath, ctx.params, 'path');
    const query = parseRequest(schemas.resumeConversation, ctx.query, 'query');
    const stream = await resolve(FindReplyInProgress).execute({ userId: query.user_id, conversationId });
    if (!stream) {
      ctx.status = 204;
      return;
    }
    await pumpReply(ctx, stream, uiMessageEncoder(), { ...options, from: 0 });
  });
}

/** The position a reconnecting EventSource sends back; a malformed one is a 400. */
function lastEventId(ctx: Context): number | undefined {
  const header = ctx.get('Last-Event-ID');
  if (header === '') return undefined;
  const parsed = position().safeParse(header.trim());
  if (!parsed.success) throw new RequestValidationError([{ field: 'Last-Event-ID', message: parsed.error.issues[0]!.message }]);
  return parsed.data;
}

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { chatJson } from '../presenters.js';
import type { RequestSchemas } from '../schemas.js';
import { SendChatMessage } from '../../../application/replies/send-chat-message.js';
import type { Resolve } from '../resolve.js';
import { parseRequest } from '../validate.js';
import { chatInput } from '../stream-request.js';

export function chatRoutes(router: Router, resolve: Resolve, schemas: RequestSchemas, json: Middleware): void {
  router.post('/v1/chat', json, async (ctx) => {
    const input = parseRequest(schemas.chat, ctx.request.body);
    const exchange = await resolve(SendChatMessage).execute(chatInput(input));
    ctx.body = chatJson(exchange);
  });
}

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { chatJson } from '../presenters.js';
import type { RequestSchemas } from '../schemas.js';
import type { UseCases } from '../use-cases.js';
import { parseRequest } from '../validate.js';

export function chatRoutes(router: Router, useCases: UseCases, schemas: RequestSchemas, json: Middleware): void {
  router.post('/v1/chat', json, async (ctx) => {
    const input = parseRequest(schemas.chat, ctx.request.body);
    const exchange = await useCases.sendChatMessage().execute({
      text: input.text,
      userId: input.user_id,
      conversationId: input.conversation_id,
      messageId: input.message_id,
    });
    ctx.body = chatJson(exchange);
  });
}

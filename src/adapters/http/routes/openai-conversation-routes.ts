import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { AddConversationItems } from '../../../application/responses/add-conversation-items.js';
import { ConversationItem } from '../../../application/responses/conversation-item.js';
import { CreateConversation } from '../../../application/responses/create-conversation.js';
import { ListConversationItems } from '../../../application/responses/list-conversation-items.js';
import { ListModels } from '../../../application/responses/list-models.js';
import { RemoveConversation } from '../../../application/responses/remove-conversation.js';
import { RetrieveConversation } from '../../../application/responses/retrieve-conversation.js';
import { HttpProblem } from '../error-mapping.js';
import { openAiUser } from '../middleware/openai-user.js';
import { deletedConversationJson, itemJson, itemListJson, modelJson, modelListJson, openAiConversationJson } from '../openai-presenters.js';
import type { OpenAiRequestSchemas } from '../openai-request-schemas.js';
import { parseOpenAi } from '../openai-validate.js';
import type { Resolve } from '../resolve.js';

const user = (ctx: Context): string => ctx.state.openAiUser!;

/**
 * OpenAI's Conversations API (`client.conversations.*`): an OpenAI conversation is a conversation
 * of the native API (the same id), its items its messages (the active branch, when listed). And
 * GET /v1/models: the model that answers.
 */
export function openAiConversationRoutes(router: Router, resolve: Resolve, schemas: OpenAiRequestSchemas, json: Middleware, identity: boolean): void {
  const who = openAiUser(identity);
  const path = (ctx: Context) => parseOpenAi(schemas.conversationPath, ctx.params, 'path').conversation_id;

  router.post('/v1/conversations', json, who, async (ctx) => {
    const body = parseOpenAi(schemas.createConversation, ctx.request.body);
    ctx.body = openAiConversationJson(await resolve(CreateConversation).execute({ userId: user(ctx), items: body.items, metadata: body.metadata }));
  });

  router.get('/v1/conversations/:conversation_id', who, async (ctx) => {
    ctx.body = openAiConversationJson(await resolve(RetrieveConversation).execute({ userId: user(ctx), conversationId: path(ctx) }));
  });

  router.post('/v1/conversations/:conversation_id', json, who, async (ctx) => {
    const conversationId = path(ctx);
    const { metadata } = parseOpenAi(schemas.updateConversation, ctx.request.body);
    ctx.body = openAiConversationJson(await resolve(RetrieveConversation).update({ userId: user(ctx), conversationId, metadata }));
  });

  router.delete('/v1/conversations/:conversation_id', who, async (ctx) => {
    const conversationId = path(ctx);
    await resolve(RemoveConversation).execute({ userId: user(ctx), conversationId });
    ctx.body = deletedConversationJson(conversationId);
  });

  router.get('/v1/conversations/:conversation_id/items', who, async (ctx) => {
    const conversationId = path(ctx);
    const query = parseOpenAi(schemas.listQuery, ctx.query, 'query');
    const page = await resolve(ListConversationItems).execute({ userId: user(ctx), conversationId, limit: query.limit, order: query.order, ...(query.after !== undefined ? { after: query.after } : {}) });
    ctx.body = itemListJson(page);
  });

  router.post('/v1/conversations/:conversation_id/items', json, who, async (ctx) => {
    const conversationId = path(ctx);
    const { items } = parseOpenAi(schemas.addItems, ctx.request.body);
    const added = await resolve(AddConversationItems).execute({ userId: user(ctx), conversationId, items });
    ctx.body = itemListJson({ items: added, hasMore: false });
  });

  router.get('/v1/conversations/:conversation_id/items/:item_id', who, async (ctx) => {
    const { conversation_id: conversationId, item_id: itemId } = parseOpenAi(schemas.itemPath, ctx.params, 'path');
    ctx.body = itemJson(await resolve(ConversationItem).execute({ userId: user(ctx), conversationId, itemId }));
  });

  router.delete('/v1/conversations/:conversation_id/items/:item_id', who, async (ctx) => {
    const { conversation_id: conversationId, item_id: itemId } = parseOpenAi(schemas.itemPath, ctx.params, 'path');
    ctx.body = openAiConversationJson(await resolve(ConversationItem).delete({ userId: user(ctx), conversationId, itemId }));
  });

  // Models too need the caller named, as every path of these APIs (and OpenAI's own) does.
  router.get('/v1/models', who, async (ctx) => {
    ctx.body = modelListJson(resolve(ListModels).execute());
  });

  router.get('/v1/models/:model', who, async (ctx) => {
    const model = resolve(ListModels).execute().find((m) => m.id === ctx.params.model);
    if (!model) throw new HttpProblem(404, `model ${JSON.stringify(ctx.params.model)} not found`, 'model_not_found');
    ctx.body = modelJson(model);
  });
}

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { ListConversations } from '../../../application/conversations/list-conversations.js';
import { DeleteConversation, EraseUser, GetConversation, UpdateConversation } from '../../../application/conversations/manage-conversation.js';
import { conversationCursor } from '../cursor.js';
import { HttpProblem } from '../error-mapping.js';
import { conversationItemJson, conversationPageJson, deletedConversationJson, erasedUserJson } from '../presenters.js';
import type { Resolve } from '../resolve.js';
import type { RequestSchemas } from '../schemas.js';
import { parseRequest } from '../validate.js';

/** A user's conversations: the list, one by itself (read, renamed, pinned, archived, deleted), and erasing a user. */
export function conversationRoutes(router: Router, resolve: Resolve, schemas: RequestSchemas, json: Middleware): void {
  router.get('/api/chat/conversations', async (ctx) => {
    const input = parseRequest(schemas.listConversations, ctx.query, 'query');
    const userId = input.user_id;
    const archived = input.archived === 'true';
    const after = input.cursor === undefined ? null : conversationCursor.decode(input.cursor, userId, archived);
    const page = await resolve(ListConversations).execute({ userId, limit: input.limit, after, archived });
    ctx.body = conversationPageJson(page.items, page.next ? conversationCursor.encode(userId, archived, page.next) : null);
  });

  router.get('/api/chat/conversations/:conversation_id', async (ctx) => {
    const { conversation_id: conversationId } = parseRequest(schemas.conversationPath, ctx.params, 'path');
    const { user_id: userId } = parseRequest(schemas.conversationQuery, ctx.query, 'query');
    ctx.body = conversationItemJson(await resolve(GetConversation).execute({ userId, conversationId }));
  });

  router.patch('/api/chat/conversations/:conversation_id', json, async (ctx) => {
    const { conversation_id: conversationId } = parseRequest(schemas.conversationPath, ctx.params, 'path');
    const input = parseRequest(schemas.updateConversation, ctx.request.body);
    const changes = { title: input.title, pinned: input.pinned, archived: input.archived };
    ctx.body = conversationItemJson(await resolve(UpdateConversation).execute({ userId: input.user_id, conversationId, changes }));
  });

  router.delete('/api/chat/conversations/:conversation_id', async (ctx) => {
    const { conversation_id: conversationId } = parseRequest(schemas.conversationPath, ctx.params, 'path');
    const { user_id: userId } = parseRequest(schemas.conversationQuery, ctx.query, 'query');
    ctx.body = deletedConversationJson(await resolve(DeleteConversation).execute({ userId, conversationId }));
  });

  router.delete('/api/users/:user_id', async (ctx) => {
    const { user_id: userId } = parseRequest(schemas.userPath, ctx.params, 'path');
    // With identity on, a user erases only themselves.
    const authenticated = ctx.state.identity?.userId;
    if (authenticated != null && authenticated !== userId) throw new HttpProblem(403, 'user_id: names another user than the one authenticated');
    ctx.body = erasedUserJson(await resolve(EraseUser).execute({ userId }));
  });
}

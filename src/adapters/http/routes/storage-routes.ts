import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { IncomingMessage } from '../../../application/services/store-messages.js';
import { deletedJson, messagePageJson, savedMessageJson, savedSessionJson, switchedBranchJson } from '../presenters.js';
import type { RequestSchemas } from '../schemas.js';
import { DeleteMessages } from '../../../application/use-cases/delete-messages.js';
import { LoadMessages } from '../../../application/use-cases/load-messages.js';
import { SaveMessage } from '../../../application/use-cases/save-message.js';
import { SaveSession } from '../../../application/use-cases/save-session.js';
import { SwitchBranch } from '../../../application/use-cases/switch-branch.js';
import { branchCursor, messageCursor } from '../cursor.js';
import type { Resolve } from '../resolve.js';
import { parseRequest } from '../validate.js';

type MessageFields = { message_id?: string; role: IncomingMessage['role']; text: string; created_at?: Date; metadata?: Record<string, unknown>; parent_id?: string | null };

const incoming = (m: MessageFields): IncomingMessage => ({
  messageId: m.message_id,
  role: m.role,
  text: m.text,
  createdAt: m.created_at,
  metadata: m.metadata,
  parentId: m.parent_id,
});

export function storageRoutes(router: Router, resolve: Resolve, schemas: RequestSchemas, json: Middleware): void {
  router.post('/api/chat/saveMessage', json, async (ctx) => {
    const input = parseRequest(schemas.saveMessage, ctx.request.body);
    const result = await resolve(SaveMessage).execute({
      userId: input.user_id,
      conversationId: input.conversation_id,
      temporary: input.temporary,
      ...incoming(input),
    });
    ctx.status = result.created ? 201 : 200;
    ctx.body = savedMessageJson(result.message);
  });

  router.post('/api/chat/loadMessages', json, async (ctx) => {
    const input = parseRequest(schemas.loadMessages, ctx.request.body);
    const { conversation_id: conversationId, order, cursor } = input;
    const common = { userId: input.user_id, conversationId, limit: input.limit, order };
    const page = await resolve(LoadMessages).execute(
      input.branch === 'all'
        ? { ...common, branch: 'all', after: cursor === undefined ? null : messageCursor.decode(cursor, conversationId, order) }
        : { ...common, branch: 'one', leafId: input.leaf_id ?? null, after: cursor === undefined ? null : branchCursor.decode(cursor, conversationId, order) },
    );
    const next = page.next === null ? null : page.next.branch === 'all' ? messageCursor.encode(conversationId, order, page.next.position) : branchCursor.encode(conversationId, order, page.next.position);
    ctx.body = messagePageJson(conversationId, page, next);
  });

  router.post('/api/chat/switchBranch', json, async (ctx) => {
    const input = parseRequest(schemas.switchBranch, ctx.request.body);
    const { headId } = await resolve(SwitchBranch).execute({ userId: input.user_id, conversationId: input.conversation_id, messageId: input.message_id });
    ctx.body = switchedBranchJson(input.conversation_id, headId);
  });

  router.delete('/api/chat/deleteMessages', json, async (ctx) => {
    const input = parseRequest(schemas.deleteMessages, deleteRequest(ctx));
    const deleted = await resolve(DeleteMessages).execute({
      userId: input.user_id,
      conversationId: input.conversation_id,
      messageIds: input.message_ids,
      all: input.all,
      descendants: input.descendants,
    });
    ctx.body = deletedJson(deleted);
  });

  router.post('/api/chat/saveSession', json, async (ctx) => {
    const input = parseRequest(schemas.saveSession, ctx.request.body);
    const result = await resolve(SaveSession).execute({
      userId: input.user_id,
      conversationId: input.conversation_id,
      sessionId: input.session_id,
      title: input.title,
      startedAt: input.started_at,
      endedAt: input.ended_at,
      metadata: input.metadata,
      messages: input.messages?.map(incoming),
    });
    ctx.status = result.created ? 201 : 200;
    ctx.body = savedSessionJson(result);
  });

}

/**
 * DELETE bodies are dropped by some proxies, so the fields may also come as query
 * parameters (message_ids comma-separated); a field in the body wins over the query.
 */
function deleteRequest(ctx: Context): unknown {
  const body = ctx.request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const query = ctx.query;
  const fromQuery: Record<string, unknown> = {};
  for (const field of ['user_id', 'conversation_id'] as const) {
    if (query[field] !== undefined) fromQuery[field] = query[field];
  }
  if (query.message_ids !== undefined) {
    fromQuery.message_ids = [query.message_ids].flat().flatMap((list) => list.split(',')).filter((id) => id !== '');
  }
  for (const flag of ['all', 'descendants'] as const) {
    const value = query[flag];
    if (value !== undefined) fromQuery[flag] = value === 'true' ? true : value === 'false' ? false : value;
  }
  const fromBody = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
  return { ...fromQuery, ...fromBody };
}

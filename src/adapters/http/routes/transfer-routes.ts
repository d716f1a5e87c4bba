import type Router from '@koa/router';
import type { Context } from 'koa';
import { Readable } from 'node:stream';
import { ExportConversation, ExportUser } from '../../../application/transfer/export-conversations.js';
import { ImportConversations } from '../../../application/transfer/import-conversations.js';
import { HttpProblem } from '../error-mapping.js';
import { chatGptArray, conversationMarkdown, fileNameOf, ndjsonLines, serviceConversationJson } from '../export-encoders.js';
import { importItems, importTooLarge, namesJson } from '../import-body.js';
import { JSON_TYPES, requireBodyType } from '../middleware/json-body.js';
import { importReportJson } from '../presenters.js';
import type { Resolve } from '../resolve.js';
import type { RequestSchemas } from '../schemas.js';
import { parseRequest } from '../validate.js';

/** What an import's body may say it is: JSON (ChatGPT's and Claude's files), the service's ndjson export, or a file as it is. */
const IMPORT_TYPES = [...JSON_TYPES, 'application/x-ndjson', 'application/ndjson', 'application/jsonl', 'application/octet-stream'];

/** With identity on, a user exports and imports only as themselves. */
function assertSelf(ctx: Context, userId: string): void {
  const authenticated = ctx.state.identity?.userId;
  if (authenticated != null && authenticated !== userId) throw new HttpProblem(403, 'user_id: names another user than the one authenticated');
}

/**
 * Export and import (docs/import-export.md): one conversation as an attachment; a user's
 * conversations streamed; an import read from the body as a stream, under its own limit
 * (IMPORT_MAX_BYTES) and not through the JSON body middleware.
 */
export function transferRoutes(router: Router, resolve: Resolve, schemas: RequestSchemas, options: { importMaxBytes: number }): void {
  router.get('/api/chat/conversations/:conversation_id/export', async (ctx) => {
    const { conversation_id: conversationId } = parseRequest(schemas.conversationPath, ctx.params, 'path');
    const { user_id: userId, format } = parseRequest(schemas.exportConversationQuery, ctx.query, 'query');
    const exported = await resolve(ExportConversation).execute({ userId, conversationId, branch: format === 'json' ? 'all' : 'active' });
    ctx.attachment(fileNameOf(conversationId, format === 'json' ? 'json' : 'md'));
    if (format === 'json') {
      ctx.type = 'application/json';
      ctx.body = serviceConversationJson(exported);
    } else {
      ctx.type = 'text/markdown; charset=utf-8';
      ctx.body = conversationMarkdown(exported);
    }
  });

  router.get('/api/users/:user_id/export', async (ctx) => {
    const { user_id: userId } = parseRequest(schemas.userPath, ctx.params, 'path');
    assertSelf(ctx, userId);
    const { format } = parseRequest(schemas.exportUserQuery, ctx.query, 'query');
    const conversations = resolve(ExportUser).execute({ userId });
    ctx.attachment(format === 'ndjson' ? 'conversations.ndjson' : 'conversations.json');
    ctx.type = format === 'ndjson' ? 'application/x-ndjson' : 'application/json';
    // Pulled as the client reads: one page of conversations and one conversation in memory at a time.
    ctx.body = Readable.from(format === 'ndjson' ? ndjsonLines(conversations) : chatGptArray(conversations), { objectMode: false });
  });

  router.post('/api/users/:user_id/import', async (ctx) => {
    const { user_id: userId } = parseRequest(schemas.userPath, ctx.params, 'path');
    assertSelf(ctx, userId);
    if (Number(ctx.get('Content-Length') || 0) > options.importMaxBytes) throw importTooLarge(options.importMaxBytes);
    // As on every route that reads a body: one sent as another type (a form, text, an image) is refused.
    requireBodyType(ctx, IMPORT_TYPES, 'Content-Type must be application/json, application/x-ndjson or application/octet-stream');
    const encoding = ctx.get('Content-Encoding').toLowerCase();
    if (encoding !== '' && encoding !== 'identity') throw new HttpProblem(415, 'Content-Encoding: send the file as it is (identity)');
    const items = importItems(ctx.req, options.importMaxBytes, { json: namesJson(ctx.get('Content-Type')) });
    const report = await resolve(ImportConversations).execute({ userId, items });
    ctx.body = importReportJson(report);
  });
}

/**
 * The yardstick for the service's in-memory HTTP path: bare Koa with the service's body parser
 * (`@koa/bodyparser`), answering GET /v1/health and POST /v1/chat with the same JSON, the chat
 * from the project's own offline responder over a Map of conversations (ownership and the
 * bounded history included). No router, middleware or validation library: what is left is the
 * floor the service's framework and layers stand on.
 *
 *   PORT=8098 node --import tsx bench/baselines/koa-server.ts
 */
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import { v7 as uuidv7 } from 'uuid';
import { elizaReply } from '../../src/adapters/llm/offline/eliza-rules.js';
import { JsonFilePersonaSource } from '../../src/adapters/persona/json-file-persona-source.js';

type Turn = { role: 'user' | 'assistant'; text: string };
const HISTORY_MESSAGES = 20;
const HISTORY_CHARS = 12_000;
const persona = new JsonFilePersonaSource().persona();
const conversations = new Map<string, { userId: string; turns: Turn[] }>();

function fail(ctx: Koa.Context, status: number, detail: string): void {
  ctx.status = status;
  ctx.body = { detail, status: 'error' };
}

function chat(ctx: Koa.Context): void {
  const body = (ctx.request.body ?? {}) as Record<string, unknown>;
  const { text, user_id: userId } = body;
  if (typeof text !== 'string' || text.trim() === '') return fail(ctx, 400, 'text: must be a non-empty string');
  if (typeof userId !== 'string' || userId === '') return fail(ctx, 400, 'user_id: must be a non-empty string');
  const conversationId = typeof body.conversation_id === 'string' ? body.conversation_id : uuidv7();
  let conversation = conversations.get(conversationId);
  if (!conversation) conversations.set(conversationId, (conversation = { userId, turns: [] }));
  if (conversation.userId !== userId) return fail(ctx, 404, 'conversation not found');

  const history: Turn[] = [];
  let chars = 0;
  for (let i = conversation.turns.length - 1; i >= 0 && history.length < HISTORY_MESSAGES; i--) {
    if ((chars += conversation.turns[i]!.text.length) > HISTORY_CHARS) break;
    history.push(conversation.turns[i]!);
  }
  const userMessageId = uuidv7();
  const response = elizaReply({ persona, history: history.reverse(), text });
  conversation.turns.push({ role: 'user', text }, { role: 'assistant', text: response });
  if (conversation.turns.length > 200) conversation.turns.splice(0, 100); // bounded, as the service's store
  ctx.body = {
    response,
    status: 'ok',
    conversation_id: conversationId,
    message_id: uuidv7(),
    user_message_id: userMessageId,
    created_at: new Date().toISOString(),
    finish_reason: 'stop',
  };
}

const app = new Koa();
app.use(bodyParser({ enableTypes: ['json'], jsonLimit: 1_048_576 }));
app.use(async (ctx) => {
  if (ctx.method === 'GET' && ctx.path === '/v1/health') {
    ctx.body = { status: 'ok', version: 'baseline', uptime_s: Math.floor(process.uptime()) };
  } else if (ctx.method === 'POST' && ctx.path === '/v1/chat') {
    chat(ctx);
  } else {
    fail(ctx, 404, 'not found');
  }
});
const server = app.listen(Number(process.env.PORT ?? 8098), process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => server.close());

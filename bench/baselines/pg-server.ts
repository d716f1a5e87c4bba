/**
 * The yardstick for the service on PostgreSQL: a hand-written `node:http` + `pg` server doing
 * the work of saveMessage, loadMessages and POST /v1/chat (offline) in the fewest round trips,
 * on the service's own migrated tables. Kept honest and simple, so that "0.8x of this" means
 * something:
 * - the same essentials of validation (JSON only, body limit, ids, text, role, metadata, limit,
 *   order, cursor) and the same JSON shapes; ownership (a conversation belongs to its first
 *   writer; another user gets 404 and changes nothing) and idempotency of saveMessage by id;
 * - one statement per round trip, no transactions: where several rows change they change in
 *   one statement (CTEs), which PostgreSQL runs atomically;
 * - the offline reply from the project's own responder and persona, so the compute is the same;
 * - saveMessage in the service's own statement and POST /v1/chat in its own two (copied, in
 *   service-statements.ts), and loadMessages in its page of the active branch with each message's
 *   siblings (its texts taken from the service's repository at start: `pageStatements`), so the
 *   database does the same work: a saved message follows the conversation's head, and a page is a
 *   branch of the tree, as the contract's conversation trees have them;
 * - the planner's statistics kept as the service keeps them where autovacuum is off (the service's
 *   own TableStatistics), so both meet the same plans.
 * Left out, as the bench never sends them: /v1/chat's replay by `message_id` (refused with 400),
 * and saveMessage's `parent_id`.
 *
 *   DATABASE_URL=postgres://... PORT=8099 node --import tsx bench/baselines/pg-server.ts
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import type { Sql } from 'sql-template-tag';
import { elizaReply } from '../../src/adapters/llm/offline/eliza-rules.js';
import { titleFromFirstMessage } from '../../src/domain/conversation.js';
import { JsonFilePersonaSource } from '../../src/adapters/persona/json-file-persona-source.js';
import { PostgresMessageRepository } from '../../src/adapters/persistence/postgres/postgres-message-repository.js';
import { TableStatistics } from '../../src/adapters/persistence/postgres/table-statistics.js';
import { recordingStatements } from '../../test/support/recording-statements.js';
import { CHAT_BEGIN, CHAT_FINISH, SAVE_MESSAGE } from './service-statements.js';

const BODY_LIMIT = 1_048_576;
const MAX_TEXT = 32_000;
const HISTORY_MESSAGES = 20;
const HISTORY_CHARS = 12_000;
const MODEL = 'offline-eliza';
const persona = new JsonFilePersonaSource().persona();
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_MAX ?? 10) });
const statistics = process.env.DATABASE_ANALYZE === 'off' ? null : new TableStatistics(pool).start();

class Problem extends Error {
  constructor(readonly status: number, detail: string) {
    super(detail);
  }
}
const invalid = (field: string, rule: string) => new Problem(400, `${field}: ${rule}`);
const codePoints = (s: string) => [...s].length;
const UNSTORABLE = /\p{Cc}|\p{Cs}/u; // control characters (NUL among them) and lone surrogates

const optionalId = (body: Record<string, unknown>, field: string) => (body[field] == null ? undefined : id(body, field));
function id(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '' || codePoints(value) > 128 || UNSTORABLE.test(value)) {
    throw invalid(field, 'must be a string of 1..128 characters without control characters');
  }
  return value;
}
function text(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') throw invalid(field, 'must be a non-empty string');
  if (codePoints(value) > MAX_TEXT) throw invalid(field, `must be at most ${MAX_TEXT} characters`);
  if (/\0|\p{Cs}/u.test(value)) throw invalid(field, 'must not contain NUL or lone surrogates');
  return value;
}
function oneOf<T extends string>(body: Record<string, unknown>, field: string, values: readonly T[], fallback?: T): T {
  const value = body[field] ?? fallback;
  if (!values.includes(value as T)) throw invalid(field, `must be one of ${values.join(', ')}`);
  return value as T;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const length = Number(req.headers['content-length'] ?? 0);
  if (length > BODY_LIMIT) throw new Problem(413, `body: larger than the limit of ${BODY_LIMIT} bytes`);
  if (length > 0 && !/^application\/(.+\+)?json\b/.test(req.headers['content-type'] ?? '')) {
    throw new Problem(415, 'Content-Type must be application/json');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if ((size += chunk.length) > BODY_LIMIT) throw new Problem(413, `body: larger than the limit of ${BODY_LIMIT} bytes`);
    chunks.push(chunk);
  }
  let body: unknown = {};
  try {
    if (size > 0) body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new Problem(400, 'body: malformed JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Problem(400, 'body: must be a JSON object');
  return body as Record<string, unknown>;
}

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const messageJson = (r: Row) => ({
  message_id: r.message_id, conversation_id: r.conversation_id, user_id: r.user_id, role: r.role,
  text: r.draft ?? r.text, created_at: new Date(r.created_at).toISOString(),
  metadata: r.finish_reason == null ? r.metadata : { ...r.metadata, finish_reason: r.finish_reason },
  status: r.status, parent_id: r.parent_id,
});
const branchMessageJson = (r: Row) => ({
  ...messageJson(r),
  siblings: { count: Number(r.sibling_count), index: Number(r.sibling_index), previous_id: r.previous_id, next_id: r.next_id },
});

/** Where a page goes on: after `afterId` (whose parent was `afterParentId`) in the branch that ends at `leafId`. */
type PagePosition = { leafId: string; afterId: string; afterParentId: string | null };
const encodeCursor = (key: unknown[]) => Buffer.from(JSON.stringify(key)).toString('base64url');
function decodeCursor(cursor: unknown, order: string, conversationId: string): PagePosition {
  try {
    const [o, c, leafId, afterId, afterParentId] = JSON.parse(Buffer.from(String(cursor), 'base64url').toString('utf8'));
    if (o === order && c === conversationId && typeof leafId === 'string' && typeof afterId === 'string' && (afterParentId === null || typeof afterParentId === 'string')) {
      return { leafId, afterId, afterParentId };
    }
  } catch { /* refused below */ }
  throw invalid('cursor', 'is not a cursor returned by this endpoint for this conversation and order');
}

/**
 * loadMessages runs the service's own statement for a page of the active branch with each
 * message's siblings (messages.page_branch), as a hand-tuned server would keep it: its texts, one
 * per order and kind of position, taken once at start from the service's repository (over the
 * tests' recording stand-in for the database, which runs nothing) with marker values, and each
 * value put in its place per request. A statement of the service is a text with its values;
 * nothing of the service runs per request.
 */
const MARK = { conversation: '\u0001conversation', user: '\u0001user', leaf: '\u0001leaf', after: '\u0001after', parent: '\u0001parent' };
const MARK_LIMIT = 1_000_001;
const pageStatements = new Map<string, { name: string; text: string; values: unknown[] }>();
for (const order of ['asc', 'desc'] as const) {
  for (const kind of ['first', 'after-parent', 'after-root'] as const) {
    const sent: Sql[] = [];
    const after = kind === 'first' ? null : { leafId: MARK.leaf, afterId: MARK.after, afterParentId: kind === 'after-root' ? null : MARK.parent };
    await new PostgresMessageRepository(recordingStatements(sent)).pageBranch(MARK.conversation, MARK.user, { order, limit: MARK_LIMIT, after, leafId: null });
    pageStatements.set(`${order} ${kind}`, { name: `page-${order}-${kind}`, text: sent[0]!.text, values: sent[0]!.values });
  }
}
// A value the statements gained that this server cannot fill stops it here, not in the middle of a run.
for (const { values } of pageStatements.values()) pageValues(values, 'c', 'u', 1, { leafId: 'l', afterId: 'a', afterParentId: 'p' });
function pageValues(marked: unknown[], conversationId: string, userId: string, limit: number, after: PagePosition | null): unknown[] {
  return marked.map((value) => {
    switch (value) {
      case MARK.conversation: return conversationId;
      case MARK.user: return userId;
      case MARK.leaf: return after!.leafId;
      case MARK.after: return after!.afterId;
      case MARK.parent: return after!.afterParentId;
      case MARK_LIMIT: return limit;
      case MARK_LIMIT + 1: return limit + 1;
      case null: return null;
      default: throw new Error(`the page statement has a value this server does not know: ${JSON.stringify(value)}`);
    }
  });
}

/** A write's row; a statement that raced the conversation's creation stored nothing and runs again (three times at most), as the service's do. */
async function untilSettled(name: string, text: string, values: unknown[]): Promise<Row> {
  for (let tries = 1; ; tries++) {
    const [row] = (await pool.query({ name, text, values })).rows as Row[];
    if (!row!.raced || tries >= 3) return row!;
  }
}

async function saveMessage(body: Record<string, unknown>): Promise<[number, unknown]> {
  const [userId, conversationId, messageId] = [id(body, 'user_id'), id(body, 'conversation_id'), optionalId(body, 'message_id')];
  const role = oneOf(body, 'role', ['user', 'assistant', 'system'] as const);
  const content = text(body, 'text');
  const metadata = body.metadata ?? {};
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) throw invalid('metadata', 'must be a JSON object');
  if (JSON.stringify(metadata).length > 16_384) throw invalid('metadata', 'must be at most 16384 bytes as JSON');
  const sentAt = body.created_at == null ? undefined : new Date(String(body.created_at));
  if (sentAt && (Number.isNaN(sentAt.getTime()) || !/T.*(Z|[+-]\d\d:?\d\d)$/.test(String(body.created_at)))) {
    throw invalid('created_at', 'must be an ISO 8601 timestamp with a time zone');
  }
  const now = new Date();
  const message = {
    message_id: messageId ?? uuidv7(), conversation_id: conversationId, user_id: userId, role, text: content, created_at: sentAt ?? now,
    metadata, reply_to: null, parent_id: null, status: 'completed', progress_at: null, finish_reason: null,
  };
  const values = [conversationId, JSON.stringify([message]), [], null, userId, now, false, [sentAt === undefined]];
  const saved = await untilSettled('save', SAVE_MESSAGE, values);
  const owner = saved.claimed ?? saved.existing;
  if (owner && owner.user_id !== userId) throw new Problem(404, 'conversation not found');
  const [taken] = saved.taken as Row[];
  if (taken) {
    const same = taken.conversation_id === conversationId && taken.role === role && taken.text === content &&
      (body.metadata === undefined || isDeepStrictEqual(taken.metadata, metadata)) &&
      (sentAt === undefined || new Date(taken.created_at).getTime() === sentAt.getTime());
    if (!same) throw new Problem(409, `message_id ${messageId} was already used for another message`);
    return [200, { status: 'ok', message: messageJson(taken) }];
  }
  const [inserted] = saved.inserted as Row[];
  if (!inserted) throw new Problem(409, 'the message could not be stored');
  return [201, { status: 'ok', message: messageJson({ ...message, created_at: inserted.created_at, parent_id: inserted.parent_id }) }];
}

async function loadMessages(body: Record<string, unknown>): Promise<[number, unknown]> {
  const [userId, conversationId] = [id(body, 'user_id'), id(body, 'conversation_id')];
  const limit = body.limit ?? 50;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 500) throw invalid('limit', 'must be an integer from 1 to 500');
  const order = oneOf(body, 'order', ['asc', 'desc'] as const, 'asc');
  const after = body.cursor == null ? null : decodeCursor(body.cursor, order, conversationId);
  const statement = pageStatements.get(`${order} ${after === null ? 'first' : after.afterParentId === null ? 'after-root' : 'after-parent'}`)!;
  const { rows: [row] } = await pool.query({ name: statement.name, text: statement.text, values: pageValues(statement.values, conversationId, userId, limit, after) });
  const owner = row.owner as Row | null;
  // An unknown conversation is an empty page, another user's 404 (as the service answers).
  if (!owner) return [200, { status: 'ok', conversation_id: conversationId, messages: [], next_cursor: null, head_id: null }];
  if (owner.user_id !== userId) throw new Problem(404, 'conversation not found');
  const page = row.page as Row[];
  const leafId = after?.leafId ?? owner.head_id;
  const last = page.length > limit ? page[limit - 1] : undefined;
  return [200, {
    status: 'ok', conversation_id: conversationId, messages: page.slice(0, limit).map(branchMessageJson),
    next_cursor: last && leafId !== null ? encodeCursor([order, conversationId, leafId, last.message_id, last.parent_id]) : null,
    head_id: owner.head_id,
  }];
}

async function chat(body: Record<string, unknown>): Promise<[number, unknown]> {
  const [content, userId] = [text(body, 'text'), id(body, 'user_id')];
  const conversationId = optionalId(body, 'conversation_id') ?? uuidv7();
  if (body.message_id != null) throw invalid('message_id', 'is not supported by this baseline');
  const [userMessageId, replyId, now] = [uuidv7(), uuidv7(), new Date()];
  const row = (created_at: Date, fields: Record<string, unknown>) => ({
    conversation_id: conversationId, user_id: userId, created_at, reply_to: null, parent_id: null, progress_at: null, finish_reason: null, ...fields,
  });
  const sent = JSON.stringify([
    row(now, { message_id: userMessageId, role: 'user', text: content, metadata: {}, status: 'completed' }),
    row(now, { message_id: replyId, role: 'assistant', text: '', metadata: { model: MODEL }, reply_to: userMessageId, parent_id: userMessageId, status: 'in_progress', progress_at: now }),
  ]);
  const begun = await untilSettled('chat-begin', CHAT_BEGIN, [conversationId, sent, [], null, userId, now, false, [true, true], userMessageId, 2 * HISTORY_MESSAGES, HISTORY_MESSAGES]);
  const stored = begun.claimed ?? begun.existing;
  if (stored?.user_id !== userId) throw new Problem(404, 'conversation not found');
  if (begun.inserted.length !== 2) throw new Problem(409, 'the message could not be stored');
  const history: { role: 'user' | 'assistant' | 'system'; text: string }[] = [];
  let chars = 0;
  for (const earlier of begun.history as Row[]) {
    if (history.length >= HISTORY_MESSAGES || (chars += codePoints(earlier.text)) > HISTORY_CHARS) break;
    history.push({ role: earlier.role, text: earlier.text });
  }
  const request = { persona, history: history.reverse(), text: content };
  const reply = elizaReply(request);
  const words = (s: string) => s.split(/\s+/u).filter((w) => w !== '').length;
  const prompt = words(persona.description) + history.reduce((n, turn) => n + words(turn.text), 0) + words(content);
  const usage = { prompt_tokens: prompt, completion_tokens: words(reply), total_tokens: prompt + words(reply) };
  const title = stored.title_source == null ? titleFromFirstMessage(content) : null;
  const { rows: [done] } = await pool.query({ name: 'chat-finish', text: CHAT_FINISH, values: [replyId, reply, { model: MODEL, usage }, 'stop', new Date(), title, title === null ? null : 'first_message'] });
  if (!done.finished) throw new Problem(500, 'the reply was not stored');
  return [200, {
    response: reply, status: 'ok', conversation_id: conversationId, message_id: replyId,
    user_message_id: userMessageId, created_at: now.toISOString(), finish_reason: 'stop',
  }];
}

const ROUTES: Record<string, (body: Record<string, unknown>) => Promise<[number, unknown]>> = {
  'POST /api/chat/saveMessage': saveMessage,
  'POST /api/chat/loadMessages': loadMessages,
  'POST /v1/chat': chat,
  'GET /v1/health': async () => [200, { status: 'ok', version: 'baseline', uptime_s: Math.floor(process.uptime()) }],
};

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let status = 500;
  let payload: unknown = { detail: 'internal error', status: 'error' };
  try {
    const route = ROUTES[`${req.method} ${req.url}`];
    if (!route) throw new Problem(404, 'not found');
    [status, payload] = await route(req.method === 'POST' ? await readJson(req) : {});
  } catch (error) {
    if (error instanceof Problem) [status, payload] = [error.status, { detail: error.message, status: 'error' }];
    else console.error(error);
  }
  const json = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': randomUUID() });
  res.end(json);
}

const server = createServer((req, res) => void handle(req, res));
server.listen(Number(process.env.PORT ?? 8099), process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => server.close(() => void Promise.resolve(statistics?.close()).then(() => pool.end())));

import { expect } from 'chai';
import pg from 'pg';
import { migrate, openPool } from '../../../src/adapters/persistence/postgres/database.js';
import { PostgresUnitOfWork } from '../../../src/adapters/persistence/postgres/postgres-unit-of-work.js';
import { finished } from '../../../src/domain/reply.js';
import { begunTurn } from '../../support/begun-turn.js';
import { createTestDatabase, requirePostgres } from '../../support/postgres.js';

/**
 * A reply's text while it is written goes to `messages.draft`, a column no index reads
 * (Migration20261204000000): a progress write then changes no indexed column and stays on its
 * row's page (HOT), where rewriting `text`, a column of the search indexes, made a new entry in
 * each of the table's b-tree indexes every time.
 */
describe('PostgreSQL: replies in progress are written to their draft', function () {
  this.timeout(20_000);
  let pool: pg.Pool | undefined;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let unitOfWork: PostgresUnitOfWork;
  let client: pg.Client;

  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
    await migrate({ url: database.url, timeoutMs: 10_000 });
    // One connection: the statistics it holds back are asked for on it (updatesSince).
    pool = openPool({ url: database.url, poolMax: 1, timeoutMs: 10_000 });
    unitOfWork = new PostgresUnitOfWork(pool);
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  after(async () => {
    await client?.end().catch(() => undefined);
    await pool?.end();
    await database?.drop();
  });

  const row = async (messageId: string) =>
    (await client.query<{ text: string; draft: string | null; status: string }>('select text, draft, status from messages where message_id = $1', [messageId])).rows[0]!;
  const advance = (replyId: string, from: number, text: string) => unitOfWork.run((r) => r.replies.advance([{ replyId, from, text }], new Date()), { atomic: false });
  /** The table's updates so far, and those that stayed on their page (as the statistics say them, each new read a fresh snapshot of them). */
  const updates = async () => {
    const { rows } = await client.query<{ n_tup_upd: string; n_tup_hot_upd: string }>(
      "select pg_stat_clear_snapshot(), n_tup_upd, n_tup_hot_upd from pg_stat_user_tables where relname = 'messages'",
    );
    return { all: Number(rows[0]!.n_tup_upd), hot: Number(rows[0]!.n_tup_hot_upd) };
  };
  /** The statistics once they count `count` updates since `from` (the pool's connection told to report its own at once). */
  const updatesSince = async (from: { all: number }, count: number) => {
    await pool!.query('select pg_stat_force_next_flush()');
    for (let waited = 0; ; waited += 100) {
      const now = await updates();
      if (now.all - from.all >= count || waited >= 10_000) return now;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  // First, on the fresh database: no other test's updates are still to be counted.
  it("progress writes stay on their row's page (HOT): no index entry for each", async () => {
    const { reply } = await begunTurn(unitOfWork);
    const before = await updatesSince({ all: 0 }, 0);
    // One reply on a page with room for all its versions: whether an update is HOT then depends only on the columns it changes.
    for (let piece = 0; piece < 10; piece++) await advance(reply.messageId, piece * 6, 'words ');
    const after = await updatesSince(before, 10);
    expect(after.all - before.all).to.equal(10);
    expect(after.hot - before.hot, 'HOT updates among the 10').to.equal(10);
  });

  it('keeps the text so far in the draft (text stays empty) and reads it as the reply\'s text; the finish moves it to text', async () => {
    const { reply } = await begunTurn(unitOfWork);
    await advance(reply.messageId, 0, 'Grüße 👋 ');
    await advance(reply.messageId, [...'Grüße 👋 '].length, 'and more');
    expect(await row(reply.messageId)).to.deep.equal({ text: '', draft: 'Grüße 👋 and more', status: 'in_progress' });
    const inProgress = await unitOfWork.run((r) => r.replies.findInProgress(reply.conversationId), { atomic: false });
    expect(inProgress?.text).to.equal('Grüße 👋 and more');
    const found = await unitOfWork.run((r) => r.messages.findById(reply.messageId), { atomic: false });
    expect(found?.text).to.equal('Grüße 👋 and more');
    const stored = await unitOfWork.run((r) => r.replies.finish(finished(reply, 'Grüße 👋 and more.', { finishReason: 'stop', model: 'm', usage: null }), new Date()), { atomic: false });
    expect(stored?.text).to.equal('Grüße 👋 and more.');
    expect(await row(reply.messageId)).to.deep.equal({ text: 'Grüße 👋 and more.', draft: null, status: 'completed' });
  });

  it('a reply left in progress is finished as interrupted with its draft as its text', async () => {
    const { reply } = await begunTurn(unitOfWork, new Date(Date.now() - 60_000));
    await advance(reply.messageId, 0, 'Half an answer');
    await client.query("update messages set progress_at = now() - interval '1 hour' where message_id = $1", [reply.messageId]);
    await unitOfWork.run((r) => r.replies.interruptStale(new Date(Date.now() - 30_000), new Date()), { atomic: false });
    expect(await row(reply.messageId)).to.deep.equal({ text: 'Half an answer', draft: null, status: 'completed' });
  });

  it('a reply begun before the draft column (its text so far in text) goes on from that text', async () => {
    const { reply } = await begunTurn(unitOfWork);
    await client.query('update messages set text = $2 where message_id = $1', [reply.messageId, 'Written before ']);
    await advance(reply.messageId, [...'Written before '].length, 'and after.');
    const found = await unitOfWork.run((r) => r.messages.findById(reply.messageId), { atomic: false });
    expect(found?.text).to.equal('Written before and after.');
  });

});

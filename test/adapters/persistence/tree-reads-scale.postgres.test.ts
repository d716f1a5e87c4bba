import { expect } from 'chai';
import pg from 'pg';
import type { Sql } from 'sql-template-tag';
import { migrate } from '../../../src/adapters/persistence/postgres/database.js';
import { PostgresMessageRepository } from '../../../src/adapters/persistence/postgres/postgres-message-repository.js';
import { PostgresReplyRepository } from '../../../src/adapters/persistence/postgres/postgres-reply-repository.js';
import { PostgresResponseRepository } from '../../../src/adapters/persistence/postgres/postgres-response-repository.js';
import { Statements } from '../../../src/adapters/persistence/postgres/statements.js';
import { Conversation } from '../../../src/domain/conversation.js';
import { Message } from '../../../src/domain/message.js';
import { openReply } from '../../../src/domain/reply.js';
import { createTestDatabase, requirePostgres } from '../../support/postgres.js';
import { recordingStatements } from '../../support/recording-statements.js';

const BIG = 2_000;

/** The statement a repository sends (its text and values), not run: the test runs it itself. */
async function statementOf(send: (db: Statements) => Promise<unknown>): Promise<Sql> {
  const sent: Sql[] = [];
  await send(recordingStatements(sent));
  return sent.at(-1)!;
}

/**
 * A write into a conversation (saveMessage's messages.append, a chat turn's replies.begin) and a
 * page of it (loadMessages) read a few rows whatever the conversation's size and the table's, even
 * on a plan made for any conversation (a generic plan, which a prepared statement gets after five
 * runs) on small tables. They once joined the messages sent with all of the conversation's (to find
 * the time of the one they follow), walked a path or read a turn's history through a join that
 * read the whole table, and read an asc page as a range of the table's `seq`. Rows read are
 * PostgreSQL's own count for the transaction (pg_stat_xact_user_tables).
 */
describe('PostgreSQL: writing into and paging a long conversation reads a few rows, not the conversation or the table', function () {
  this.timeout(30_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let client: pg.Client;
  const at = new Date('2026-11-20T10:00:00Z');
  const big = Conversation.create({ conversationId: 'big', userId: 'owner', createdAt: at });

  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
    await migrate({ url: database.url, timeoutMs: 10_000 });
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    // Twenty conversations of 120 messages, written in turns, then a long one (a chain): a generic plan is made for the short ones.
    await client.query(`insert into users (user_id, created_at) values ('owner', $1)`, [at]);
    await client.query(
      `insert into conversations (conversation_id, user_id, created_at, active_at, temporary)
       select c, 'owner', $1, $1, false from (select 'big' as c union all select 'small-' || g from generate_series(1, 20) g) s`,
      [at],
    );
    await client.query(
      `insert into messages (message_id, conversation_id, user_id, role, text, created_at, metadata, parent_id, status)
       select 'small-' || c || '-' || g, 'small-' || c, 'owner', 'user', 'message ' || g, $1::timestamptz + g * interval '1 ms', '{}',
              case when g > 1 then 'small-' || c || '-' || (g - 1) end, 'completed'
       from generate_series(1, 20) c, generate_series(1, 120) g order by g, c`,
      [at],
    );
    await client.query(
      `insert into messages (message_id, conversation_id, user_id, role, text, created_at, metadata, parent_id, status)
       select 'big-' || g, 'big', 'owner', 'user', 'message ' || g, $1::timestamptz + g * interval '1 ms', '{}', case when g > 1 then 'big-' || (g - 1) end, 'completed'
       from generate_series(1, ${BIG}) g`,
      [at],
    );
    await client.query('analyze');
    await client.query('set plan_cache_mode = force_generic_plan');
  });
  after(async () => {
    await client?.end().catch(() => undefined);
    await database?.drop();
  });

  /**
   * Runs `work` on generic plans, rolled back: its result and the rows of `messages` it read.
   * `seqscan: false`: with the planner kept off sequential scans. On this small table they are
   * cheap, and some joins of a statement take them; at any size, what must not happen is reading
   * the whole table or conversation through an index.
   */
  async function reading<T>(work: () => Promise<T>, { seqscan = true } = {}): Promise<{ read: number; result: T }> {
    const readSoFar = async () =>
      Number((await client.query(`select coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as n from pg_stat_xact_user_tables where relname = 'messages'`)).rows[0].n);
    await client.query('begin');
    try {
      // Local to the transaction: the rollback resets it.
      if (!seqscan) await client.query('set local enable_seqscan = off');
      const before = await readSoFar();
      const result = await work();
      return { read: (await readSoFar()) - before, result };
    } finally {
      await client.query('rollback');
    }
  }

  /** The repositories' statements on the test's own connection (and its generic plans). */
  const onClient = () => new Statements(client as unknown as pg.PoolClient);

  /** Runs the statement on a generic plan, rolled back; the rows of `messages` it read. */
  async function rowsRead(name: string, statement: Sql): Promise<{ read: number; inserted: number }> {
    const { read, result } = await reading(() => client.query({ name, text: statement.text, values: statement.values }));
    return { read, inserted: (result.rows[0].inserted as unknown[]).length };
  }

  const message = (messageId: string, parentId: string | null = null) =>
    Message.create({ messageId, conversationId: 'big', userId: 'owner', role: 'user', text: 'one more', createdAt: new Date(), metadata: {}, replyTo: null, parentId });

  it('saveMessage (messages.append), after the head and after a parent named', async () => {
    const afterHead = await statementOf((db) => new PostgresMessageRepository(db).append(big, [message('new-1')], { roots: new Set(), stamped: new Set(['new-1']) }));
    const named = await statementOf((db) => new PostgresMessageRepository(db).append(big, [message('new-2', 'big-10')], { roots: new Set(), stamped: new Set(['new-2']) }));
    for (const [name, statement] of [['after-head', afterHead], ['named', named]] as const) {
      const { read, inserted } = await rowsRead(name, statement);
      expect(inserted, name).to.equal(1);
      expect(read, `${name}: rows of messages read`).to.be.below(50);
    }
  });

  it('a chat turn (replies.begin)', async () => {
    const question = message('asked');
    const statement = await statementOf((db) =>
      new PostgresReplyRepository(db).begin({ conversation: big, userMessage: question, parentIfStored: null, reply: openReply(question, 'answer', 'm', new Date()), historyLimit: 20 }),
    );
    const { read, inserted } = await rowsRead('turn', statement);
    expect(inserted).to.equal(2);
    // The history: the finished messages above the question, 20 at most, read by their keys.
    expect(read, 'rows of messages read').to.be.below(100);
  });

  it('loadMessages: pages of the active branch in both orders, the first and the next, read about a page each', async () => {
    const messages = new PostgresMessageRepository(onClient());
    for (const order of ['asc', 'desc'] as const) {
      const first = await reading(() => messages.pageBranch('big', 'owner', { order, limit: 50, after: null, leafId: null }));
      expect(first.result.messages, order).to.have.length(50);
      expect(first.result.messages[0]!.message.messageId, order).to.equal(order === 'asc' ? 'big-1' : `big-${BIG}`);
      expect(first.read, `${order}, first page: rows of messages read`).to.be.below(250);
      const next = await reading(() => messages.pageBranch('big', 'owner', { order, limit: 50, after: first.result.next, leafId: null }));
      expect(next.result.messages[0]!.message.messageId, order).to.equal(order === 'asc' ? 'big-51' : `big-${BIG - 50}`);
      expect(next.read, `${order}, next page: rows of messages read`).to.be.below(250);
    }
  });

  it('switchBranch from the middle of the chain: the subtree below is read once', async () => {
    const messages = new PostgresMessageRepository(onClient());
    const { read, result } = await reading(() => messages.switchBranch('big', 'owner', `big-${BIG / 2}`), { seqscan: false });
    expect(result).to.include({ found: true, headId: `big-${BIG}` });
    // The message and its BIG / 2 descendants, each once (they were looked up again by key to find the newest).
    expect(read, 'rows of messages read').to.be.within(BIG / 2 + 1, BIG / 2 + 20);
  });

  it('DELETE /v1/conversations/{id} (responses.deleteConversation): the messages are read once, by the delete', async () => {
    const responses = new PostgresResponseRepository(onClient());
    const { read, result } = await reading(() => responses.deleteConversation('big', 'owner'), { seqscan: false });
    expect(result.messages).to.equal(BIG);
    // Counted by the row's message_count: counting them read each message a second time.
    expect(read, 'rows of messages read').to.be.within(BIG, BIG + 20);
  });

  it('deleteMessages by ids, with descendants: the subtree at the end of the conversation, by key', async () => {
    const messages = new PostgresMessageRepository(onClient());
    const { read, result } = await reading(() => messages.deleteOwned('big', 'owner', [`big-${BIG - 10}`], true), { seqscan: false });
    expect(result.deleted).to.equal(11);
    expect(read, 'rows of messages read').to.be.below(200);
  });
});

import { expect } from 'chai';
import pg from 'pg';
import { migrate, openPool } from '../../../src/adapters/persistence/postgres/database.js';
import { PostgresUnitOfWork } from '../../../src/adapters/persistence/postgres/postgres-unit-of-work.js';
import { cutShort, finished } from '../../../src/domain/reply.js';
import { begunTurn } from '../../support/begun-turn.js';
import { uid } from '../../support/ids.js';
import { createTestDatabase, requirePostgres } from '../../support/postgres.js';

/**
 * Statements that write a conversation's messages lock its row first: replies.begin claims it
 * (insert ... on conflict do update) before it inserts the message and its reply, and a
 * concurrent begin of the same message then waits, in the reply_to index, for whoever is
 * changing the reply. A statement changing the reply and only then locking the conversation
 * (to bump active_at) closes a cycle: PostgreSQL broke it after deadlock_timeout (1 s) each
 * time, and under parallel identical chat requests a wait outlasted DATABASE_TIMEOUT_MS (503).
 *
 * Here a transaction holds the conversation's row as begin does, a reply statement is left
 * waiting for it, and the transaction then inserts a second reply to the same message, as a
 * concurrent begin does: that insert must not wait for the reply statement (lock_timeout
 * turns such a wait into an error at once, where the deadlock detector would take a second).
 */
describe('PostgreSQL: a conversation\'s row is locked before its messages are changed', function () {
  this.timeout(20_000);
  let pool: pg.Pool | undefined;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let unitOfWork: PostgresUnitOfWork;
  let holder: pg.Client;
  let monitor: pg.Client;

  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
    await migrate({ url: database.url, timeoutMs: 10_000 });
    pool = openPool({ url: database.url, poolMax: 4, timeoutMs: 10_000 });
    unitOfWork = new PostgresUnitOfWork(pool);
    holder = new pg.Client({ connectionString: database.url });
    monitor = new pg.Client({ connectionString: database.url });
    await Promise.all([holder.connect(), monitor.connect()]);
  });
  after(async () => {
    await holder?.end().catch(() => undefined);
    await monitor?.end().catch(() => undefined);
    await pool?.end();
    await database?.drop();
  });


  /** Resolves once a statement named `name` waits for a lock. */
  async function waitingForLock(name: string): Promise<void> {
    for (;;) {
      const { rows } = await monitor.query(
        `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like $1`,
        [`/* ${name} */%`],
      );
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** In the holder's transaction, which has the conversation's row: a second reply to the message, as a concurrent begin inserts it. */
  async function insertRivalReply(turn: Awaited<ReturnType<typeof begunTurn>>): Promise<number> {
    const result = await holder.query(
      `insert into messages (message_id, conversation_id, user_id, role, text, created_at, metadata, reply_to, status, progress_at)
       values ($1, $2, $3, 'assistant', '', now(), '{}', $4, 'in_progress', now()) on conflict do nothing`,
      [uid('rival'), turn.conversation.conversationId, turn.conversation.userId, turn.userMessage.messageId],
    );
    return result.rowCount ?? -1;
  }

  async function holdConversation(conversationId: string): Promise<void> {
    await holder.query('begin');
    await holder.query("set local lock_timeout = '500ms'");
    await holder.query('update conversations set active_at = active_at where conversation_id = $1', [conversationId]);
  }

  it('replies.finish waits for the conversation before it touches the reply', async () => {
    const turn = await begunTurn(unitOfWork);
    await holdConversation(turn.conversation.conversationId);
    const answered = finished(turn.reply, 'the whole answer', { finishReason: 'stop', model: 'm', usage: null });
    const finishing = unitOfWork.run((r) => r.replies.finish(answered, new Date()), { atomic: false });
    try {
      await waitingForLock('replies.finish');
      expect(await insertRivalReply(turn), 'the reply stands: nothing inserted').to.equal(0);
    } finally {
      await holder.query('commit').catch(() => holder.query('rollback'));
    }
    const stored = await finishing;
    expect(stored?.toProps()).to.include({ messageId: turn.reply.messageId, text: 'the whole answer', status: 'completed' });
  });

  it('replies.reopen waits for the conversation before it adds a reply (message_count), and yields to one added meanwhile', async () => {
    const turn = await begunTurn(unitOfWork);
    const removed = await unitOfWork.run((r) => r.replies.finish(cutShort(turn.reply, 'cancelled'), new Date()), { atomic: false });
    expect(removed, 'an empty reply is removed').to.equal(null);
    await holdConversation(turn.conversation.conversationId);
    const again = turn.reply.with({ messageId: uid('reply') });
    const reopening = unitOfWork.run((r) => r.replies.reopen(again), { atomic: false });
    try {
      await waitingForLock('replies.reopen');
      expect(await insertRivalReply(turn), 'no reply stands: the rival is stored').to.equal(1);
    } finally {
      await holder.query('commit').catch(() => holder.query('rollback'));
    }
    expect(await reopening, 'the rival came first').to.equal(null);
  });

  it('replies.reopen replaces a reply cut short, and opens one where none stands', async () => {
    const turn = await begunTurn(unitOfWork);
    await unitOfWork.run((r) => r.replies.finish(cutShort(turn.reply.with({ text: 'half' }), 'cancelled'), new Date()), { atomic: false });
    const replacement = turn.reply.with({ messageId: uid('reply') });
    expect((await unitOfWork.run((r) => r.replies.reopen(replacement), { atomic: false }))?.toProps()).to.include({ messageId: replacement.messageId, text: '', status: 'in_progress' });

    const other = await begunTurn(unitOfWork);
    await unitOfWork.run((r) => r.replies.finish(other.reply, new Date()), { atomic: false }); // empty: removed
    const opened = other.reply.with({ messageId: uid('reply') });
    expect((await unitOfWork.run((r) => r.replies.reopen(opened), { atomic: false }))?.messageId).to.equal(opened.messageId);
    expect(await unitOfWork.run((r) => r.messages.count(other.conversation.conversationId), { atomic: false })).to.equal(2);
  });

  it('replies.interrupt_stale waits for the conversation before it touches the reply', async () => {
    const turn = await begunTurn(unitOfWork, new Date(Date.now() - 60_000));
    await unitOfWork.run((r) => r.replies.advance([{ replyId: turn.reply.messageId, from: 0, text: 'half an ans' }], new Date(Date.now() - 60_000)), { atomic: false });
    await holdConversation(turn.conversation.conversationId);
    const sweeping = unitOfWork.run((r) => r.replies.interruptStale(new Date(Date.now() - 30_000), new Date()), { atomic: false });
    try {
      await waitingForLock('replies.interrupt_stale');
      expect(await insertRivalReply(turn), 'the reply stands: nothing inserted').to.equal(0);
    } finally {
      await holder.query('commit').catch(() => holder.query('rollback'));
    }
    expect(await sweeping).to.equal(1);
    const reply = await unitOfWork.run((r) => r.messages.findReplyTo(turn.userMessage.messageId), { atomic: false });
    expect(reply?.toProps()).to.include({ messageId: turn.reply.messageId, text: 'half an ans', status: 'completed' });
    expect(reply?.finishReason).to.equal('interrupted');
  });

  it('messages.delete_owned waits for the conversation before it deletes (message_count)', async () => {
    const turn = await begunTurn(unitOfWork);
    await holdConversation(turn.conversation.conversationId);
    const deleting = unitOfWork.run((r) => r.messages.deleteOwned(turn.conversation.conversationId, turn.conversation.userId, null), { atomic: false });
    try {
      await waitingForLock('messages.delete_owned');
      expect(await insertRivalReply(turn), 'the reply stands: nothing inserted').to.equal(0);
    } finally {
      await holder.query('commit').catch(() => holder.query('rollback'));
    }
    expect((await deleting).deleted).to.equal(2);
  });
});

import { expect } from 'chai';
import pg from 'pg';
import { migrate, openPool } from '../../src/adapters/persistence/postgres/database.js';
import { PostgresUnitOfWork } from '../../src/adapters/persistence/postgres/postgres-unit-of-work.js';
import { openPostgresStore } from '../../src/adapters/persistence/postgres/postgres-store.js';
import { FOLLOW_CHANNEL, NEWS_CHANNEL, PostgresReplyNotifications } from '../../src/adapters/persistence/postgres/postgres-reply-notifications.js';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { storeContracts } from './all-contracts.js';

describe('PostgreSQL store', function () {
  let pool: pg.Pool | undefined;
  let notifications: PostgresReplyNotifications | undefined;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
    await migrate({ url: database.url, timeoutMs: 5000 });
    pool = openPool({ url: database.url, poolMax: 10, timeoutMs: 5000 });
    notifications = new PostgresReplyNotifications({ url: database.url, timeoutMs: 5000 });
    await notifications.start();
  });
  after(async () => {
    await notifications?.close();
    await pool?.end();
    await database?.drop();
  });

  storeContracts(async () => ({ unitOfWork: new PostgresUnitOfWork(pool!), notifications, close: async () => {} }));
});

describe('PostgreSQL store: a conversation is read as one chain in insertion order only while it is one', function () {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let pool: pg.Pool | undefined;
  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
    await migrate({ url: database.url, timeoutMs: 5000 });
    pool = openPool({ url: database.url, poolMax: 2, timeoutMs: 5000 });
  });
  after(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('messages written child before parent (an import, a script) page in path order, not insertion order', async () => {
    const insert = (id: string, parent: string | null, at: number) =>
      pool!.query(
        `insert into messages (message_id, conversation_id, user_id, role, text, created_at, metadata, parent_id)
         values ($1::text, 'c', 'u', 'user', $1::text, to_timestamp($3), '{}', $2)`,
        [id, parent, at],
      );
    await pool!.query(`insert into users (user_id, created_at) values ('u', now())`);
    await pool!.query(`insert into conversations (conversation_id, user_id, created_at, active_at) values ('c', 'u', now(), now())`);
    // The path is a → b → c → d, written d, a, c, b.
    await insert('d', 'c', 4);
    await insert('a', null, 1);
    await insert('c', 'b', 3);
    await insert('b', 'a', 2);
    await pool!.query(`update conversations set head_id = 'd' where conversation_id = 'c'`);
    const store = new PostgresUnitOfWork(pool!);
    const page = await store.run((r) => r.messages.pageBranch('c', 'u', { leafId: null, order: 'asc', limit: 10, after: null }), { atomic: false });
    expect(page.messages.map((m) => m.message.messageId)).to.deep.equal(['a', 'b', 'c', 'd']);
    const forked = await pool!.query(`select forked from conversations where conversation_id = 'c'`);
    expect(forked.rows[0].forked, 'not one chain in insertion order').to.equal(true);
  });
});

describe('PostgreSQL store: instances starting together', function () {
  this.timeout(30_000);
  it('apply a new migration once; every instance starts', async function () {
    await requirePostgres(this);
    const database = await createTestDatabase();
    try {
      const stores = await Promise.all([1, 2, 3].map(() => openPostgresStore({ url: database.url, poolMax: 2, timeoutMs: 5000 })));
      const applied = stores.map((store) => store.migrationsApplied.length);
      await Promise.all(stores.map((store) => store.close()));
      expect(applied.filter((count) => count > 0), `migrations applied per instance: ${applied.join(', ')}`).to.have.length(1);
      expect(Math.max(...applied)).to.be.greaterThan(0);
    } finally {
      await database.drop();
    }
  });
});

describe('PostgreSQL reply notifications: a lost connection', function () {
  this.timeout(30_000);
  it('is re-made; every watcher is told to look, and news flows again (across two instances)', async function () {
    await requirePostgres(this);
    const database = await createTestDatabase();
    const states: string[] = [];
    const follower = new PostgresReplyNotifications({ url: database.url, timeoutMs: 5000, onState: (state) => states.push(state) });
    const producerStates: string[] = [];
    const producer = new PostgresReplyNotifications({ url: database.url, timeoutMs: 5000, onState: (state) => producerStates.push(state) });
    try {
      await Promise.all([follower.start(), producer.start()]);
      const replyId = 'reply-lost-connection';
      const news: string[] = [];
      const unwatch = follower.watch(replyId, (n) => news.push(n.type === 'piece' ? `${n.from}:${n.text}` : n.type));
      const follows: number[] = [];
      producer.onFollow((id, from) => id === replyId && follows.push(from));
      const until = async (done: () => boolean) => {
        for (let waited = 0; !done(); waited += 20) {
          if (waited > 10_000) throw new Error(`timed out; news ${JSON.stringify(news)}, states ${states.join(',')}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      const admin = openPool({ url: database.url, poolMax: 1, timeoutMs: 5000 });
      try {
        const killed = await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'assistant-backend-notifications' and pid <> pg_backend_pid()`,
        );
        expect(killed.rowCount).to.equal(2);
      } finally {
        await admin.end();
      }
      await until(() => news.includes('look'));
      expect(states).to.deep.equal(['listening', 'lost', 'listening']);
      // A notice sent while the other instance is not listening is lost (followers say it again every 2 s): wait for it.
      await until(() => producerStates.length === 3);
      expect(producerStates).to.deep.equal(['listening', 'lost', 'listening']);
      follower.follow(replyId, 7);
      await until(() => follows.includes(7));
      producer.publish({ type: 'piece', replyId, from: 7, text: 'again' });
      await until(() => news.includes('7:again'));
      unwatch();
    } finally {
      await Promise.all([follower.close(), producer.close()]);
      await database.drop();
    }
  });
});

/** Waits, 20 ms at a time and 10 s at most, until `done`; `what` says what was awaited. */
async function waitFor(done: () => boolean, what: () => string): Promise<void> {
  for (let waited = 0; !done(); waited += 20) {
    if (waited > 10_000) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A bare connection listening to `channel`: the payloads it hears, and the JSON lists they carry, joined. */
async function listening(url: string, channel: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const payloads: string[] = [];
  client.on('notification', (notice) => notice.channel === channel && payloads.push(notice.payload ?? ''));
  await client.query(`listen ${channel}`);
  return { payloads, parts: () => payloads.flatMap((p) => JSON.parse(p) as unknown[]), end: () => client.end() };
}

/** Ids of the shape the service gives replies (UUIDv7), numbered. */
const replyIds = (count: number) => Array.from({ length: count }, (_, n) => `0192f5c3-7a1b-7c2d-8e3f-${String(n).padStart(12, '0')}`);

describe('PostgreSQL reply notifications: follows sent together', function () {
  this.timeout(30_000);
  it('a thousand follows made at once go out as a few notices, each below the payload limit', async function () {
    await requirePostgres(this);
    const database = await createTestDatabase();
    const follower = new PostgresReplyNotifications({ url: database.url, timeoutMs: 5000 });
    const listener = await listening(database.url, FOLLOW_CHANNEL);
    try {
      await follower.start();
      const follows = replyIds(1000).map((replyId, n) => [replyId, n * 10] as [string, number]);
      for (const [replyId, from] of follows) follower.follow(replyId, from);
      await waitFor(() => listener.parts().length >= follows.length, () => `the follows (${listener.payloads.length} notices so far)`);
      expect(listener.parts()).to.deep.equal(follows);
      expect(listener.payloads.length).to.be.within(2, 20);
      for (const payload of listener.payloads) expect(Buffer.byteLength(payload)).to.be.below(8000);
    } finally {
      await Promise.all([follower.close(), listener.end()]);
      await database.drop();
    }
  });
});

describe('PostgreSQL reply notifications: news only to instances that follow, several pieces to a notice', function () {
  this.timeout(30_000);
  it('pieces of many replies published at once go out as a few notices; a follower that starts watching hears what comes after its follow', async function () {
    await requirePostgres(this);
    const database = await createTestDatabase();
    const producer = new PostgresReplyNotifications({ url: database.url, timeoutMs: 5000 });
    const follower = new PostgresReplyNotifications({ url: database.url, timeoutMs: 5000 });
    const listener = await listening(database.url, NEWS_CHANNEL);
    try {
      await Promise.all([producer.start(), follower.start()]);
      const replies = replyIds(300);
      for (const replyId of replies) producer.publish({ type: 'piece', replyId, from: 0, text: `the first words of ${replyId}` });
      await waitFor(() => listener.parts().length >= replies.length, () => `the pieces (${listener.payloads.length} notices so far)`);
      expect(listener.parts().map((part) => (part as { r: string }).r)).to.deep.equal(replies);
      expect(listener.payloads.length).to.be.within(2, 30);
      for (const payload of listener.payloads) expect(Buffer.byteLength(payload)).to.be.below(8000);

      // The follower watched nothing so far; it begins, follows, and the producer answers the follow at once.
      const replyId = replies[0]!;
      producer.onFollow((id, from) => id === replyId && producer.publish({ type: 'piece', replyId, from, text: 'after the follow' }));
      const heard: string[] = [];
      const unwatch = follower.watch(replyId, (news) => news.type === 'piece' && heard.push(news.text));
      follower.follow(replyId, 30);
      await waitFor(() => heard.length > 0, () => 'the piece sent after the follow');
      expect(heard).to.deep.equal(['after the follow']);
      unwatch();
    } finally {
      await Promise.all([producer.close(), follower.close(), listener.end()]);
      await database.drop();
    }
  });
});

describe('PostgreSQL reply notifications: statements of notices at most one per 10 ms', function () {
  this.timeout(30_000);
  it('pieces published one after another for 300 ms go out in a few dozen transactions, not one each, every piece heard in order', async function () {
    await requirePostgres(this);
    const database = await createTestDatabase();
    const producer = new PostgresReplyNotifications({ url: database.url, timeoutMs: 5000 });
    const listener = await listening(database.url, NEWS_CHANNEL);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    // Every transaction that notifies takes a transaction id: how many the producer took tells how many statements it sent.
    const nextId = async () => Number((await admin.query<{ id: string }>('select pg_current_xact_id()::text as id')).rows[0]!.id);
    try {
      await producer.start();
      const replies = replyIds(150);
      const before = await nextId();
      for (const replyId of replies) {
        producer.publish({ type: 'piece', replyId, from: 0, text: 'a piece' });
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await waitFor(() => listener.parts().length >= replies.length, () => `the pieces (${listener.payloads.length} notices so far)`);
      const taken = (await nextId()) - before - 1;
      expect(listener.parts().map((part) => (part as { r: string }).r)).to.deep.equal(replies);
      // 150 pieces over at least 300 ms: at most one statement per 10 ms is about 30 (sent as they came, it was one a piece).
      expect(taken).to.be.within(1, 45);
    } finally {
      await Promise.all([producer.close(), listener.end(), admin.end()]);
      await database.drop();
    }
  });
});

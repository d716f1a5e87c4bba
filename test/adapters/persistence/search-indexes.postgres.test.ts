import { expect } from 'chai';
import { openPostgresStore } from '../../../src/adapters/persistence/postgres/postgres-store.js';
import { Conversation } from '../../../src/domain/conversation.js';
import { parseSearchQuery } from '../../../src/domain/search-query.js';
import { aMessage } from '../../support/builders.js';
import { uid } from '../../support/ids.js';
import { ADMIN_URL, createTestDatabase, requirePostgres, runStatements, withClient } from '../../support/postgres.js';


const indexDefinition = (url: string) =>
  withClient(url, async (client) => {
    const { rows } = await client.query(`select indexname, indexdef from pg_indexes where tablename = 'messages' and indexname like 'messages_search%' order by 1`);
    return rows as { indexname: string; indexdef: string }[];
  });

describe('PostgreSQL: the search indexes at start-up', function () {
  this.timeout(30_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  before(async function () {
    await requirePostgres(this);
  });
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  it('are made by the migration: the user and the stemmed words, the user and the trigrams, both GIN', async () => {
    database = await createTestDatabase();
    const store = await openPostgresStore({ url: database.url, poolMax: 2, timeoutMs: 5000 });
    await store.close();
    const indexes = await indexDefinition(database.url);
    expect(indexes.map((i) => i.indexname)).to.deep.equal(['messages_search_trigrams', 'messages_search_words']);
    expect(indexes[0]!.indexdef).to.match(/USING gin \(user_id, text gin_trgm_ops\) WHERE \(status = 'completed'::text\)$/);
    expect(indexes[1]!.indexdef).to.match(/USING gin \(user_id, to_tsvector\('english'::regconfig, text\)\) WHERE \(status = 'completed'::text\)$/);
  });

  it("hold finished messages only, and a search's conditions reach them (a reply being written is not indexed at every progress write)", async () => {
    database = await createTestDatabase();
    const store = await openPostgresStore({ url: database.url, poolMax: 2, timeoutMs: 5000 });
    await store.close();
    await runStatements(database.url, [
      `insert into users (user_id, created_at) select 'u' || u, now() from generate_series(1, 200) as u`,
      `insert into conversations (conversation_id, user_id, created_at, active_at)
         select 'c' || u, 'u' || u, now(), now() from generate_series(1, 200) as u`,
      `insert into messages (message_id, conversation_id, user_id, role, text, created_at, metadata)
         select 'm' || i, 'c' || (i % 200 + 1), 'u' || (i % 200 + 1), 'user', 'message number ' || i || ' about gardens and rivers', now(), '{}'::jsonb
         from generate_series(1, 20000) as i`,
      'analyze messages',
    ]);
    const plan = (condition: string) =>
      withClient(database!.url, async (client) => {
        // Whether the index can serve the query (its condition implied by the query's), not whether it is cheapest on a small table.
        await client.query('set enable_seqscan = off');
        const { rows } = await client.query(`explain select m.message_id from messages m where m.user_id = 'u7' and m.status = 'completed' and ${condition}`);
        return rows.map((row: Record<string, string>) => Object.values(row)[0]).join('\n');
      });
    expect(await plan(`to_tsvector('english'::regconfig, m.text) @@ websearch_to_tsquery('english'::regconfig, 'gardens')`)).to.include('messages_search_words');
    expect(await plan(`m.text ilike '%number 1207 about%'`)).to.include('messages_search_trigrams');
  });

  it('made by an earlier version for every message are rebuilt at start-up to hold finished messages only', async () => {
    database = await createTestDatabase();
    const first = await openPostgresStore({ url: database.url, poolMax: 2, timeoutMs: 5000 });
    await first.close();
    await runStatements(database.url, [
      'drop index messages_search_words',
      'drop index messages_search_trigrams',
      `create index messages_search_words on messages using gin (user_id, to_tsvector('english'::regconfig, text))`,
      'create index messages_search_trigrams on messages using gin (user_id, text gin_trgm_ops)',
    ]);
    const notes: string[] = [];
    const store = await openPostgresStore({ url: database.url, poolMax: 2, timeoutMs: 5000, note: (m) => notes.push(m) });
    await store.close();
    expect(notes.filter((n) => /rebuilding the search index .* to hold finished messages only/.test(n))).to.have.length(2);
    const indexes = await indexDefinition(database.url);
    expect(indexes.map((i) => i.indexname)).to.deep.equal(['messages_search_trigrams', 'messages_search_words']);
    for (const index of indexes) expect(index.indexdef).to.match(/WHERE \(status = 'completed'::text\)$/);
    const again: string[] = [];
    await (await openPostgresStore({ url: database.url, poolMax: 2, timeoutMs: 5000, note: (m) => again.push(m) })).close();
    expect(again.filter((n) => /rebuilding/.test(n)), 'nothing to rebuild the next time').to.deep.equal([]);
  });

  it('follow a changed SEARCH_LANGUAGE: the words index is rebuilt and search stems by it', async () => {
    database = await createTestDatabase();
    const first = await openPostgresStore({ url: database.url, poolMax: 2, timeoutMs: 5000 });
    await first.close();
    const notes: string[] = [];
    const store = await openPostgresStore({ url: database.url, poolMax: 2, timeoutMs: 5000, searchLanguage: 'german', note: (m) => notes.push(m) });
    try {
      expect(notes.join('\n')).to.match(/rebuilding the search index .* SEARCH_LANGUAGE=german/);
      expect((await indexDefinition(database.url))[1]!.indexdef).to.match(/'german'::regconfig/);
      const userId = uid('user');
      const conversation = Conversation.create({ conversationId: uid('conv'), userId, createdAt: new Date() });
      const message = aMessage(conversation, { text: 'Die Kinder spielen im Garten.' });
      const hits = await store.unitOfWork.run(async (r) => {
        await r.messages.append(conversation, [message]);
        return r.search.search({ userId, query: parseSearchQuery('Kind'), filters: { conversationId: null, role: null, from: null, to: null }, limit: 5, after: null });
      });
      expect(hits.hits.map((h) => h.message.messageId)).to.deep.equal([message.messageId]);
      expect(hits.hits[0]!.position.stage).to.equal('words');
    } finally {
      await store.close();
    }
  });

  it('stop start-up with an error naming SEARCH_LANGUAGE when the database has no such configuration', async () => {
    database = await createTestDatabase();
    const error = await openPostgresStore({ url: database.url, poolMax: 2, timeoutMs: 5000, searchLanguage: 'klingon' }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.message).to.match(/SEARCH_LANGUAGE "klingon" is not a text-search configuration of this database \(it has: .*english/);
  });

  it('stop start-up with an error naming the extension that cannot be created', async () => {
    database = await createTestDatabase();
    const role = `assistant_test_${uid('r').replaceAll('-', '').slice(-12)}`;
    await runStatements(ADMIN_URL, [`create role ${role} login`]);
    await runStatements(database.url, [`grant create on schema public to ${role}`]);
    try {
      const url = new URL(database.url);
      url.username = role;
      const error = await openPostgresStore({ url: url.toString(), poolMax: 2, timeoutMs: 5000 }).then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(error?.message).to.match(/^search needs the PostgreSQL extension pg_trgm, which cannot be created in this database \(permission denied to create extension "pg_trgm"[;)]/);
      expect(error?.message).to.match(/create extension pg_trgm/);
    } finally {
      await database.drop();
      database = undefined;
      await runStatements(ADMIN_URL, [`drop owned by ${role}`, `drop role ${role}`]).catch(() => runStatements(ADMIN_URL, [`drop role if exists ${role}`]));
    }
  });
});

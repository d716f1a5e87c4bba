/**
 * `npm run bench`: what one page of loadMessages costs for a conversation of 1,000 messages
 * against one of 100,000, on a real PostgreSQL (TEST_DATABASE_URL or the local server), in the
 * same run. Keyset pagination should make the ratio about 1. Prints the query plan too.
 */
import { performance } from 'node:perf_hooks';
import { migrate, openDatabase } from '../src/adapters/persistence/mikro-orm/database.js';
import { MikroOrmUnitOfWork } from '../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { LoadMessages } from '../src/application/use-cases/load-messages.js';
import { createTestDatabase, postgresReachable } from '../test/support/postgres.js';

const SIZES = [1_000, 100_000];
const ROUNDS = 200;

if (!(await postgresReachable())) {
  console.error('bench: no PostgreSQL reachable (set TEST_DATABASE_URL)');
  process.exit(1);
}
const database = await createTestDatabase('assistant_bench');
const orm = await openDatabase({ url: database.url, poolMax: 4, timeoutMs: 10_000 });
try {
  await migrate(orm);
  const em = orm.em.fork();
  for (const size of SIZES) {
    const id = `bench-${size}`;
    await em.execute(`insert into users values ('bench', now()) on conflict do nothing`);
    await em.execute(`insert into conversations values (?, 'bench', now(), now())`, [id]);
    await em.execute(
      `insert into messages (message_id, conversation_id, user_id, role, text, created_at, metadata)
       select ? || '-' || i, ?, 'bench', 'user', 'message ' || i, now() - (i * interval '1 second'), '{}'::jsonb
       from generate_series(1, ?) as i`,
      [id, id, size],
    );
  }
  await em.execute('analyze messages');

  const load = new LoadMessages(new MikroOrmUnitOfWork(orm));
  /** Median time of: first page, then one page from a cursor deep in the conversation. */
  const measure = async (size: number) => {
    const conversationId = `bench-${size}`;
    const input = { userId: 'bench', conversationId, limit: 50, order: 'asc' as const, after: null };
    let after = (await load.execute(input)).next!;
    for (let i = 0; i < 5; i++) after = (await load.execute({ ...input, after })).next!;
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const started = performance.now();
      await load.execute({ ...input, after });
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
  };
  for (const size of SIZES) await measure(size); // warm-up
  const [small, large] = [await measure(SIZES[0]!), await measure(SIZES[1]!)];
  console.log(`loadMessages, one page of 50 after a cursor (median of ${ROUNDS}):`);
  console.log(`  ${SIZES[0]!.toLocaleString('en')} messages: ${small.toFixed(3)} ms (baseline)`);
  console.log(`  ${SIZES[1]!.toLocaleString('en')} messages: ${large.toFixed(3)} ms, ratio ${(large / small).toFixed(2)}x`);

  const plan = await em.execute<{ 'QUERY PLAN': string }[]>(
    `explain (analyze, buffers, costs off) select * from messages where conversation_id = ?
     and (created_at, seq) > (now() - interval '50000 seconds', 0) order by created_at, seq limit 51`,
    ['bench-100000'],
  );
  console.log('\nquery plan, 100,000-message conversation:');
  for (const row of plan) console.log(`  ${row['QUERY PLAN']}`);
} finally {
  await orm.close(true);
  await database.drop();
}

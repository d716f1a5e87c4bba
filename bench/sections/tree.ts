import { performance } from 'node:perf_hooks';
import { openMigrator } from '../../src/adapters/persistence/postgres/database.js';
import { createDatabase, serverOf, withClient } from '../support/databases.js';
import { expectOk } from '../support/http.js';
import { compareRates, rateFigure } from '../support/load.js';
import { measureOf, type Figure, type Measure, type Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';
import { Cleanup, COUNTED_ENV, startService, type RunningServer } from '../support/servers.js';
import { startWireCounter, type WireCounter } from '../support/wire-counter.js';

export const heading =
  'conversation trees on PostgreSQL: the newest page of the active branch and a chat turn on a tree of 10,000 messages in 500 branches ' +
  'against a single branch of 100 (sequential requests; round trips counted on the wire), and Migration20261126000000 on existing messages';
export const needsPostgres = true;

const USER = 'bench-tree';
const LIMIT = 50;
/** The tree: 10,000 messages in 500 branches, a trunk and 499 side branches of BRANCH_LENGTH messages each. */
const TREE_MESSAGES = 10_000;
const TREE_BRANCHES = 500;
const BRANCH_LENGTH = 10;
/** The baseline: a single branch of 100 messages. */
const SMALL_MESSAGES = 100;
/** A single branch as long as the tree's whole size, to show how `asc` grows with the path. */
const LONG_MESSAGES = 10_000;
const MIGRATION_BEFORE = 'Migration20261125000000';
const MIGRATION = 'Migration20261126000000';

type Order = 'asc' | 'desc';

/** A small deterministic generator (mulberry32), so every run builds the same tree. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Shape {
  /** Messages on the trunk, the first included (depths 1..trunk). */
  trunk: number;
  /** Depth on the trunk of each side branch's parent. */
  forks: number[];
  /** The head: the trunk's last message, or the last of a side branch (its index in `forks`). */
  headBranch: number | null;
}

/** The path length from the first message to the head. */
const headDepth = (shape: Shape) => (shape.headBranch === null ? shape.trunk : shape.forks[shape.headBranch]! + BRANCH_LENGTH);

/**
 * A trunk, then side branches of BRANCH_LENGTH messages forking from it at random depths (edits
 * and regenerations: the first message of a branch is a user message under an assistant one, or
 * an assistant one under a user one), made after the whole trunk; the head is the last message
 * of the branch that forks deepest (10 from the trunk's end), so the active path is long.
 */
function treeShape(messages: number, branches: number): Shape {
  const next = random(23);
  const trunk = messages - (branches - 1) * BRANCH_LENGTH;
  const forks = Array.from({ length: branches - 1 }, () => 1 + Math.floor(next() * (trunk - 1)));
  forks[Math.floor(next() * forks.length)] = trunk - BRANCH_LENGTH;
  const deepest = forks.indexOf(Math.max(...forks));
  return { trunk, forks, headBranch: deepest };
}

/**
 * Builds a conversation whose first message the service stored (`<id>-t1`, a user message made
 * through its API, so the conversation and its owner are the service's own), directly in SQL:
 * the trunk in one `insert ... select generate_series`, the side branches in another, parent_id
 * and reply_to set as the service sets them, then the head.
 */
async function buildTree(databaseUrl: string, conversationId: string, shape: Shape, start: Date): Promise<string> {
  const headId = shape.headBranch === null ? `${conversationId}-t${shape.trunk}` : `${conversationId}-b${shape.headBranch + 1}-${BRANCH_LENGTH}`;
  await withClient(databaseUrl, async (client) => {
    // Depth d: a user message when d is odd; an assistant message answers its parent (reply_to).
    await client.query(
      `insert into messages (message_id, conversation_id, user_id, role, text, created_at, metadata, reply_to, parent_id)
       select $1 || '-t' || d, $1, $2, case when d % 2 = 1 then 'user' else 'assistant' end,
              'Trunk message ' || d || ': the quick brown fox jumps over the lazy dog.',
              $3::timestamptz + d * interval '1 second', '{}'::jsonb,
              case when d % 2 = 0 then $1 || '-t' || (d - 1) end, $1 || '-t' || (d - 1)
       from generate_series(2, $4::int) as d order by d`,
      [conversationId, USER, start, shape.trunk],
    );
    if (shape.forks.length > 0) {
      await client.query(
        `insert into messages (message_id, conversation_id, user_id, role, text, created_at, metadata, reply_to, parent_id)
         select $1 || '-b' || b || '-' || j, $1, $2, case when (f + j) % 2 = 1 then 'user' else 'assistant' end,
                'Branch ' || b || ' message ' || j || ': the quick brown fox jumps over the lazy dog.',
                $3::timestamptz + ($4::int + b * $6::int + j) * interval '1 second', '{}'::jsonb,
                case when (f + j) % 2 = 0 then parent end, parent
         from unnest($5::int[]) with ordinality as fork(f, b)
         cross join generate_series(1, $6::int) as j
         cross join lateral (select case when j = 1 then $1 || '-t' || f else $1 || '-b' || b || '-' || (j - 1) end as parent) p
         order by b, j`,
        [conversationId, USER, start, shape.trunk, shape.forks, BRANCH_LENGTH],
      );
    }
    await client.query(`update conversations set head_id = $2 where conversation_id = $1`, [conversationId, headId]);
    await client.query('analyze messages');
  });
  return headId;
}

/** p95 of samples, as a Measure (median field = the percentile; min and max of all samples). */
function percentile(samples: number[], p: number): Measure {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return { median: at, min: sorted[0]!, max: sorted.at(-1)!, samples: sorted.length };
}

/** Round trips and statements per chat turn, `requests` sequential turns after a warm-up. */
async function countTurns(server: RunningServer, counter: WireCounter, conversationId: string, requests: number, label: string): Promise<Figure> {
  const turn = (n: number) => expectOk(server.url, 'POST', '/v1/chat', { user_id: USER, conversation_id: conversationId, text: `Counted turn ${n}: tell me more.` });
  for (let n = 0; n < 5; n++) await turn(n);
  counter.reset();
  for (let n = 5; n < 5 + requests; n++) await turn(n);
  const { roundTrips, statements } = counter.counts();
  const perRequest = roundTrips / requests;
  const statementsPerRequest = Number((statements / requests).toFixed(2));
  return {
    label,
    measure: { median: perRequest, min: perRequest, max: perRequest, samples: requests },
    unit: perRequest === 1 ? 'round trip' : 'round trips',
    note: `${statementsPerRequest} statements`,
  };
}

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  const rows: Row[] = [];
  const cleanup = new Cleanup();
  try {
    rows.push(...(await measureTree(settings, log, cleanup)));
  } finally {
    await cleanup.run();
  }
  const migration = new Cleanup();
  try {
    rows.push(...(await measureMigration(settings, log, migration)));
  } finally {
    await migration.run();
  }
  return rows;
}

async function measureTree(settings: SectionContext['settings'], log: SectionContext['log'], cleanup: Cleanup): Promise<Row[]> {
  const database = cleanup.add(await createDatabase(settings.adminUrl, 'tree'), (d) => d.drop());
  const counter = cleanup.add(await startWireCounter(serverOf(settings.adminUrl)), (c) => c.close());
  // One instance for the timings, one behind the counting proxy (the proxy's hop stays out of the timings).
  const service = cleanup.add(await startService('service', { databaseUrl: database.url }), (s) => s.stop());
  const counted = cleanup.add(await startService('service (counted)', { databaseUrl: counter.via(database.url), env: COUNTED_ENV }), (s) => s.stop());

  const conversations = {
    tree: { id: 'tree', shape: treeShape(TREE_MESSAGES, TREE_BRANCHES), label: `tree of ${TREE_MESSAGES.toLocaleString('en')} in ${TREE_BRANCHES} branches` },
    small: { id: 'single-small', shape: { trunk: SMALL_MESSAGES, forks: [], headBranch: null }, label: `single branch of ${SMALL_MESSAGES}` },
    long: { id: 'single-long', shape: { trunk: LONG_MESSAGES, forks: [], headBranch: null }, label: `single branch of ${LONG_MESSAGES.toLocaleString('en')}` },
  } satisfies Record<string, { id: string; shape: Shape; label: string }>;
  const start = new Date(Date.now() - 30 * 86_400_000);
  const heads = new Map<keyof typeof conversations, string>();
  for (const [key, { id, shape, label }] of Object.entries(conversations) as [keyof typeof conversations, (typeof conversations)[keyof typeof conversations]][]) {
    const started = performance.now();
    await expectOk(service.url, 'POST', '/api/chat/saveMessage', {
      user_id: USER,
      conversation_id: id,
      message_id: `${id}-t1`,
      role: 'user',
      text: 'The first message.',
      created_at: new Date(start.getTime() + 1000).toISOString(),
    });
    heads.set(key, await buildTree(database.url, id, shape, start));
    log(`built the ${label} (active path ${headDepth(shape).toLocaleString('en')} messages) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }

  // Every page is checked: full, the newest message first (desc) or the first message first (asc).
  const page = async (key: keyof typeof conversations, order: Order) => {
    const { id } = conversations[key];
    const answer = await expectOk(service.url, 'POST', '/api/chat/loadMessages', { user_id: USER, conversation_id: id, limit: LIMIT, order });
    const messages = answer.json.messages as { message_id: string }[];
    const expected = order === 'asc' ? `${id}-t1` : heads.get(key);
    if (messages.length !== LIMIT || messages[0]?.message_id !== expected || answer.json.head_id !== heads.get(key)) {
      throw new Error(`the ${order} page of ${id} held ${messages.length} messages from ${messages[0]?.message_id} (head ${answer.json.head_id})`);
    }
    return answer.ms;
  };
  const keys = (['desc', 'asc'] as Order[]).flatMap((order) => (['tree', 'small', 'long'] as const).map((key) => ({ key, order, name: `${key} ${order}` })));
  for (let i = 0; i < 20; i++) for (const { key, order } of keys) await page(key, order);
  const times = new Map(keys.map(({ name }) => [name, [] as number[]]));
  for (let round = 0; round < settings.pageRequests; round++) {
    for (let step = 0; step < keys.length; step++) {
      const { key, order, name } = keys[(round + step) % keys.length]!;
      times.get(name)!.push(await page(key, order));
    }
  }
  const median = (key: keyof typeof conversations, order: Order): Figure => ({ label: conversations[key].label, measure: measureOf(times.get(`${key} ${order}`)!), unit: 'ms' });
  const p95 = (key: keyof typeof conversations, order: Order): Figure => ({
    label: `${conversations[key].label}, p95`,
    measure: percentile(times.get(`${key} ${order}`)!, 95),
    unit: 'ms',
  });
  log(`pages timed: ${settings.pageRequests} sequential requests per conversation and order`);

  // Throughput of the newest page, 32 connections, tree against the single branch.
  const pageBody = (id: string) => () => ({ user_id: USER, conversation_id: id, limit: LIMIT, order: 'desc' });
  const [treeRate, smallRate] = await compareRates(
    [
      { server: { ...service, label: 'tree' }, method: 'POST', path: '/api/chat/loadMessages', body: pageBody('tree'), status: 200 },
      { server: { ...service, label: 'single branch' }, method: 'POST', path: '/api/chat/loadMessages', body: pageBody('single-small'), status: 200 },
    ],
    settings,
    log,
  );

  // Chat turns: round trips on the counted instance, then latency on the other, interleaved.
  const treeTrips = await countTurns(counted, counter, 'tree', settings.roundTripRequests, conversations.tree.label);
  const smallTrips = await countTurns(counted, counter, 'single-small', settings.roundTripRequests, conversations.small.label);
  log(`chat turn round trips: tree ${treeTrips.measure.median}, single branch ${smallTrips.measure.median}`);
  const turnTimes = { tree: [] as number[], 'single-small': [] as number[] };
  const turns = 2 * settings.roundTripRequests;
  for (let n = 0; n < turns + 10; n++) {
    for (const id of n % 2 ? (['tree', 'single-small'] as const) : (['single-small', 'tree'] as const)) {
      const answer = await expectOk(service.url, 'POST', '/v1/chat', { user_id: USER, conversation_id: id, text: `Timed turn ${n}: what do you think?` });
      if (n >= 10) turnTimes[id].push(answer.ms);
    }
  }
  // The turns moved the head; the active branch is still the tree's deep branch, now longer.
  const after = await expectOk(service.url, 'POST', '/api/chat/loadMessages', { user_id: USER, conversation_id: 'tree', limit: 2, order: 'desc' });
  if (after.json.messages.length !== 2 || after.json.messages[1].parent_id === null) throw new Error('the tree lost its active branch after the chat turns');

  const tree = conversations.tree.label;
  return [
    {
      figure: 'newest page of the active branch (50, desc)',
      subject: median('tree', 'desc'),
      baseline: median('small', 'desc'),
      target: { text: `the newest page (desc) of a ${tree} against a single branch of ${SMALL_MESSAGES}`, atMost: 1.5 },
    },
    {
      figure: 'newest page of the active branch (50, desc)',
      subject: p95('tree', 'desc'),
      baseline: p95('small', 'desc'),
      target: { text: `p95 of the newest page (desc) of a ${tree}`, valueBelow: 20 },
    },
    { figure: 'newest page (50, desc), single branch', subject: median('long', 'desc'), baseline: median('small', 'desc') },
    {
      figure: 'newest page (50, desc), 32 connections',
      subject: rateFigure(tree, treeRate!),
      baseline: rateFigure(conversations.small.label, smallRate!),
    },
    {
      figure: `first page of the active branch (50, asc; walks the path of ${headDepth(conversations.tree.shape).toLocaleString('en')})`,
      subject: median('tree', 'asc'),
      baseline: median('small', 'asc'),
    },
    {
      figure: `first page (50, asc; walks the path of ${LONG_MESSAGES.toLocaleString('en')})`,
      subject: median('long', 'asc'),
      baseline: median('small', 'asc'),
    },
    {
      figure: 'POST /v1/chat round trips (offline model)',
      subject: treeTrips,
      baseline: smallTrips,
      target: { text: `chat turn round trips on a ${tree} against a single branch`, atMost: 1 },
    },
    {
      figure: 'POST /v1/chat latency (offline model)',
      subject: { label: tree, measure: measureOf(turnTimes.tree), unit: 'ms' },
      baseline: { label: conversations.small.label, measure: measureOf(turnTimes['single-small']), unit: 'ms' },
    },
  ];
}

/** Messages in each conversation of the migration's database. */
const MIGRATION_PER_CONVERSATION = 100;

/**
 * A database at the migration before the tree's, holding `messages` messages in conversations of
 * 100, as a service running for a while would have them: conversations active at once, so each
 * one's messages are spread over the table, seq following created_at; a reply made within the
 * millisecond of its question now and then (the order then rests on seq).
 */
async function buildOldDatabase(url: string, messages: number): Promise<void> {
  const orm = await openMigrator({ url, timeoutMs: 600_000 });
  try {
    await orm.getMigrator().up({ to: MIGRATION_BEFORE });
  } finally {
    await orm.close(true);
  }
  const conversations = Math.max(1, Math.round(messages / MIGRATION_PER_CONVERSATION));
  await withClient(url, async (client) => {
    const start = new Date(Date.now() - 365 * 86_400_000);
    await client.query(`insert into users (user_id, created_at) select 'user-' || u, $1 from generate_series(0, $2::int - 1) u`, [start, Math.ceil(conversations / 4)]);
    await client.query(
      `insert into conversations (conversation_id, user_id, created_at, active_at)
       select 'conv-' || c, 'user-' || (c / 4), $1::timestamptz + c * interval '1 millisecond', $1::timestamptz
       from generate_series(0, $2::int - 1) c`,
      [start, conversations],
    );
    // Message i of conversation c at step i * conversations + c (ms), a pair's reply sometimes in the same ms.
    await client.query(
      `insert into messages (message_id, conversation_id, user_id, role, text, created_at, metadata, reply_to)
       select 'conv-' || c || '-m' || i, 'conv-' || c, 'user-' || (c / 4),
              case when i % 2 = 0 then 'user' else 'assistant' end,
              'Message ' || i || ' of conversation ' || c || ': the quick brown fox jumps over the lazy dog.',
              $1::timestamptz + t.step * interval '1 millisecond',
              '{}'::jsonb, case when i % 2 = 1 then 'conv-' || c || '-m' || (i - 1) end
       from generate_series(0, $3::int - 1) i cross join generate_series(0, $2::int - 1) c
       cross join lateral (select (case when i % 10 = 1 then i - 1 else i end)::bigint * $2::int + c as step) t
       where i::bigint * $2::int + c < $4::bigint
       order by t.step, i`,
      [start, conversations, Math.ceil(messages / conversations), messages],
    );
    await client.query(
      `update conversations c set active_at = m.last from (select conversation_id, max(created_at) as last from messages group by 1) m
       where c.conversation_id = m.conversation_id`,
    );
    await client.query('vacuum analyze');
  });
}

/** Conversations that are not one branch (a parent other than the message before, or a head other than the last). */
async function brokenConversations(url: string): Promise<{ parents: number; heads: number }> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ parents: string; heads: string }>(
      `select (select count(distinct conversation_id) from (
                 select conversation_id, parent_id, lag(message_id) over (partition by conversation_id order by created_at, seq) as previous
                 from messages) m where parent_id is distinct from previous) as parents,
              (select count(*) from conversations c where head_id is distinct from (
                 select message_id from messages m where m.conversation_id = c.conversation_id order by created_at desc, seq desc limit 1)) as heads`,
    );
    return { parents: Number(rows[0]!.parents), heads: Number(rows[0]!.heads) };
  });
}

async function measureMigration(settings: SectionContext['settings'], log: SectionContext['log'], cleanup: Cleanup): Promise<Row[]> {
  const messages = settings.migrationMessages;
  const conversations = Math.max(1, Math.round(messages / MIGRATION_PER_CONVERSATION));
  const migrated = cleanup.add(await createDatabase(settings.adminUrl, 'tree_migration'), (d) => d.drop());
  let started = performance.now();
  await buildOldDatabase(migrated.url, messages);
  log(`${messages.toLocaleString('en')} messages in ${conversations.toLocaleString('en')} conversations at ${MIGRATION_BEFORE} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  // The baseline's database is a copy of it (no connection to it is left open), so both start from the same table.
  started = performance.now();
  const baseline = cleanup.add(await createDatabase(settings.adminUrl, 'tree_unbatched', migrated.name), (d) => d.drop());
  log(`copied it (create database ... template) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // Each timed part starts after a checkpoint, so neither pays for the other's dirty pages (the
  // checkpoints the first one's WAL brings on would otherwise fall on the second).
  const checkpoint = () =>
    withClient(settings.adminUrl, (client) => client.query('checkpoint')).catch((error: unknown) => log(`no checkpoint (${String(error)}): the second timing may pay for the first one's writes`));

  // The migration, as the service applies it (MikroORM's Migrator).
  await checkpoint();
  const orm = await openMigrator({ url: migrated.url, timeoutMs: 3_600_000 });
  let migrationSeconds: number;
  try {
    started = performance.now();
    const applied = await orm.getMigrator().up({ to: MIGRATION });
    migrationSeconds = (performance.now() - started) / 1000;
    if (applied.map((m) => m.name).join() !== MIGRATION) throw new Error(`the migrator applied ${applied.map((m) => m.name).join(', ') || 'nothing'}`);
  } finally {
    await orm.close(true);
  }
  log(`${MIGRATION}: ${migrationSeconds.toFixed(1)} s`);

  // The baseline: the same schema change unbatched, each step one statement: the columns and
  // indexes, one update of every message's parent, one of every conversation's head.
  let baselineSeconds = 0;
  await checkpoint();
  await withClient(baseline.url, async (client) => {
    const step = async (name: string, statement: string) => {
      const started = performance.now();
      await client.query(statement);
      const seconds = (performance.now() - started) / 1000;
      baselineSeconds += seconds;
      log(`unbatched: ${name} ${seconds.toFixed(1)} s`);
    };
    await step('columns', `alter table messages add column parent_id varchar(128) collate "C" null;
      alter table conversations add column head_id varchar(128) collate "C" null`);
    await step('indexes', `create index messages_children on messages (conversation_id, (coalesce(parent_id, '')), created_at, seq);
      create index messages_replies on messages (reply_to, created_at, seq) where reply_to is not null;
      create unique index messages_one_reply_in_progress on messages (reply_to) where status = 'in_progress';
      alter table messages drop constraint if exists messages_reply_to_unique`);
    await step(
      'update messages set parent_id',
      `update messages m set parent_id = o.parent_id
       from (select message_id, lag(message_id) over (partition by conversation_id order by created_at, seq) as parent_id from messages) o
       where m.message_id = o.message_id and o.parent_id is not null`,
    );
    await step(
      'update conversations set head_id',
      `update conversations c set head_id = h.message_id
       from (select distinct on (conversation_id) conversation_id, message_id from messages order by conversation_id, created_at desc, seq desc) h
       where c.conversation_id = h.conversation_id`,
    );
  });

  for (const [name, database] of [['migration', migrated], ['unbatched baseline', baseline]] as const) {
    const broken = await brokenConversations(database.url);
    if (broken.parents + broken.heads > 0) {
      throw new Error(`${name}: ${broken.parents} conversations with a parent other than the message before, ${broken.heads} with a head other than the last`);
    }
  }
  log(`verified: each of the ${conversations.toLocaleString('en')} conversations is one branch (parent = the message before, head = the last), after both`);

  const rate = (seconds: number) => `${Math.round(messages / seconds).toLocaleString('en')} messages/s`;
  const once = (value: number): Measure => ({ median: value, min: value, max: value, samples: 1 });
  return [
    {
      figure: `${MIGRATION} on ${messages.toLocaleString('en')} messages in ${conversations.toLocaleString('en')} conversations`,
      subject: { label: 'batched migration', measure: once(migrationSeconds), unit: 's', note: rate(migrationSeconds) },
      baseline: { label: 'unbatched, one statement per step', measure: once(baselineSeconds), unit: 's', note: rate(baselineSeconds) },
    },
  ];
}

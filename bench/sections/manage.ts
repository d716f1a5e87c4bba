import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { createDatabase, withClient } from '../support/databases.js';
import { eachLimited, expectOk } from '../support/http.js';
import { measureOf, type Figure, type Measure, type Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';
import { Cleanup, startService, type RunningServer } from '../support/servers.js';

export const heading =
  'deleting on PostgreSQL: DELETE /api/chat/conversations/{id} of 10,000 messages against one of 100, DELETE /api/users/{id} of 100 conversations × 100 ' +
  'against 1 × 100 (sequential, fresh data each time), and the p99 of another user\'s loadMessages (8 connections) during the deletions against the same load between them';
export const needsPostgres = true;

/** Each deletion is timed this many times, each time on freshly seeded data. */
const ROUNDS = 5;
const BIG_CONVERSATION = 10_000;
const SMALL_CONVERSATION = 100;
const USER_CONVERSATIONS = 100;
const PER_CONVERSATION = 100;
/** The other user's load: connections, and the messages of the conversation it reads. */
const LOAD_CONNECTIONS = 8;
const READ_MESSAGES = 120;
/** Load without deletions between two of them (the baseline's window), and the part of it after a deletion left out of the baseline. */
const QUIET_MS = 1500;
const SETTLE_MS = 300;

interface Seeded {
  userId: string;
  conversationIds: string[];
  messages: number;
}

/**
 * A user with `conversations` conversations of `messages` messages each: the first message of
 * each through the API (the service makes the user and the conversation), the rest in SQL
 * (`seedChains`).
 */
async function seedUser(service: RunningServer, databaseUrl: string, userId: string, conversations: number, messages: number): Promise<Seeded> {
  const conversationIds = Array.from({ length: conversations }, (_, c) => `${userId}-c${c}`);
  const start = new Date(Date.now() - 86_400_000);
  await eachLimited(conversationIds, 8, (conversationId) =>
    expectOk(service.url, 'POST', '/api/chat/saveMessage', {
      user_id: userId,
      conversation_id: conversationId,
      message_id: `${conversationId}-seed-1`,
      role: 'user',
      text: 'Seeded message 1: the quick brown fox jumps over the lazy dog.',
      created_at: new Date(start.getTime() + 1).toISOString(),
    }),
  );
  if (messages > 1) await seedChains(databaseUrl, userId, conversationIds, messages, start);
  return { userId, conversationIds, messages: conversations * messages };
}

/**
 * Messages 2..`messages` of each conversation in one `insert ... select generate_series`, each
 * message's parent the one before it, as the service writes a single branch (the insert trigger
 * then sets the head). Not `seedMessages`, which inserts them parentless and links them after:
 * the trigger would see 10,000 first messages side by side, mark the conversation forked, and
 * its sibling check takes seconds to minutes on a table that has seen many deletions.
 */
async function seedChains(databaseUrl: string, userId: string, conversationIds: string[], messages: number, start: Date): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    await client.query(
      `insert into messages (message_id, conversation_id, user_id, role, text, created_at, metadata, parent_id)
       select c || '-seed-' || i, c, $2, case when i % 2 = 0 then 'assistant' else 'user' end,
              'Seeded message ' || i || ': the quick brown fox jumps over the lazy dog.',
              $3::timestamptz + i * interval '1 millisecond', '{}'::jsonb, c || '-seed-' || (i - 1)
       from unnest($1::text[]) as c cross join generate_series(2, $4::int) as i
       order by c, i`,
      [conversationIds, userId, start, messages],
    );
    const { rows } = await client.query<{ wrong: string }>(
      `select count(*) as wrong from conversations where conversation_id = any($1::text[])
       and (forked or message_count <> $2::int or head_id is distinct from conversation_id || '-seed-' || $2::int)`,
      [conversationIds, messages],
    );
    if (Number(rows[0]!.wrong) > 0) throw new Error(`${rows[0]!.wrong} seeded conversations are not one branch of ${messages} with its last message the head`);
    await client.query('analyze messages');
  });
}

type Kind = 'conversation' | 'user';

/** One deletion, checked (everything it should have deleted, deleted); its start and end on the bench's clock. */
async function remove(service: RunningServer, kind: Kind, seeded: Seeded): Promise<{ start: number; end: number; ms: number }> {
  const start = performance.now();
  const answer =
    kind === 'conversation'
      ? await expectOk(service.url, 'DELETE', `/api/chat/conversations/${encodeURIComponent(seeded.conversationIds[0]!)}?user_id=${encodeURIComponent(seeded.userId)}`)
      : await expectOk(service.url, 'DELETE', `/api/users/${encodeURIComponent(seeded.userId)}`);
  const end = performance.now();
  const deleted = answer.json.deleted;
  if (deleted?.messages !== seeded.messages || deleted?.conversations !== seeded.conversationIds.length) {
    throw new Error(`DELETE of ${kind} ${seeded.userId} deleted ${JSON.stringify(deleted)}, not ${seeded.conversationIds.length} conversations and ${seeded.messages} messages`);
  }
  return { start, end, ms: answer.ms };
}

/** The p-th percentile of samples, as a Measure of one figure (the sample count kept). */
function percentile(samples: number[], p: number): Measure {
  if (samples.length === 0) throw new Error('no samples for a percentile');
  const sorted = [...samples].sort((a, b) => a - b);
  const at = sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return { median: at, min: at, max: at, samples: sorted.length };
}

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  const cleanup = new Cleanup();
  try {
    const database = cleanup.add(await createDatabase(settings.adminUrl, 'manage'), (d) => d.drop());
    const service = cleanup.add(await startService('service', { databaseUrl: database.url }), (s) => s.stop());
    let users = 0;
    const seed = (conversations: number, messages: number) => seedUser(service, database.url, `bench-manage-${users++}`, conversations, messages);
    const shapes = {
      bigConversation: () => seed(1, BIG_CONVERSATION),
      smallConversation: () => seed(1, SMALL_CONVERSATION),
      bigUser: () => seed(USER_CONVERSATIONS, PER_CONVERSATION),
      smallUser: () => seed(1, PER_CONVERSATION),
    };

    // 1 and 2: sequential deletions, no other load; each seeded just before, subject and baseline alternating.
    const times = { bigConversation: [] as number[], smallConversation: [] as number[], bigUser: [] as number[], smallUser: [] as number[] };
    const warm = await shapes.smallConversation();
    await remove(service, 'conversation', warm);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['big', 'small'] as const) : (['small', 'big'] as const);
      for (const size of order) {
        for (const kind of ['conversation', 'user'] as const) {
          const key = `${size}${kind === 'conversation' ? 'Conversation' : 'User'}` as keyof typeof times;
          const seeded = await shapes[key]();
          times[key].push((await remove(service, kind, seeded)).ms);
          log(`${key}: ${times[key].at(-1)!.toFixed(0)} ms`);
        }
      }
    }
    log(
      `sequential deletions (${ROUNDS} each, fresh data): conversation of ${BIG_CONVERSATION.toLocaleString('en')} ${measureOf(times.bigConversation).median.toFixed(0)} ms, ` +
        `user of ${USER_CONVERSATIONS}×${PER_CONVERSATION} ${measureOf(times.bigUser).median.toFixed(0)} ms`,
    );

    // 3: another user's loadMessages under constant load; deletions of fresh data seeded beforehand
    // fired one at a time with QUIET_MS of load alone between them. Each load request is classed
    // by its own interval: overlapping a deletion's, or wholly in a quiet window (less SETTLE_MS
    // after a deletion).
    const reader = await seed(1, READ_MESSAGES);
    const pending: { kind: Kind; seeded: Seeded }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      pending.push({ kind: 'conversation', seeded: await shapes.bigConversation() });
      pending.push({ kind: 'user', seeded: await shapes.bigUser() });
    }
    await sleep(1000);
    const body = JSON.stringify({ user_id: reader.userId, conversation_id: reader.conversationIds[0], limit: 50, order: 'desc' });
    const requests: { start: number; end: number; status: number }[] = [];
    const instance = autocannon({
      url: service.url,
      connections: LOAD_CONNECTIONS,
      duration: 3600,
      requests: [{ method: 'POST', path: '/api/chat/loadMessages', headers: { 'content-type': 'application/json' }, body }],
    }) as unknown as autocannon.Instance & PromiseLike<autocannon.Result>;
    instance.on('response', (_client, status, _bytes, responseTime) => {
      const end = performance.now();
      requests.push({ start: end - responseTime, end, status });
    });
    await sleep(settings.warmupSeconds * 1000);
    const loadStart = performance.now();
    const windows: { kind: Kind; start: number; end: number }[] = [];
    for (const { kind, seeded } of pending) {
      await sleep(QUIET_MS);
      windows.push({ kind, ...(await remove(service, kind, seeded)) });
    }
    await sleep(QUIET_MS);
    const loadEnd = performance.now();
    instance.stop();
    const result = await instance;

    const timed = requests.filter((r) => r.start >= loadStart && r.end <= loadEnd);
    const failed = timed.filter((r) => r.status !== 200).length + result.errors + result.timeouts;
    const overlaps = (r: { start: number; end: number }, w: { start: number; end: number }, after = 0) => r.start < w.end + after && r.end > w.start;
    const during = (kind: Kind) => timed.filter((r) => windows.some((w) => w.kind === kind && overlaps(r, w))).map((r) => r.end - r.start);
    const quiet = timed.filter((r) => !windows.some((w) => overlaps(r, w, SETTLE_MS))).map((r) => r.end - r.start);
    const overlapMs = (kind: Kind) => windows.filter((w) => w.kind === kind).reduce((sum, w) => sum + w.end - w.start, 0);
    log(
      `load: ${timed.length} loadMessages in ${((loadEnd - loadStart) / 1000).toFixed(1)} s; ${ROUNDS} deletions of each kind overlapping ` +
        `${overlapMs('conversation').toFixed(0)} ms (conversation) and ${overlapMs('user').toFixed(0)} ms (user)${failed ? `; ${failed} failed` : ''}`,
    );
    const p99 = (label: string, samples: number[]): Figure => {
      const measure = percentile(samples, 99);
      return { label, measure, unit: 'ms', note: `${samples.length} requests, median ${measureOf(samples).median.toFixed(1)} ms${failed ? `, ${failed} failed in all` : ''}` };
    };
    const ms = (label: string, samples: number[]): Figure => ({ label, measure: measureOf(samples), unit: 'ms' });
    const quietFigure = p99('without deletions', quiet);

    return [
      {
        figure: 'DELETE /api/chat/conversations/{id}',
        subject: ms(`${BIG_CONVERSATION.toLocaleString('en')} messages`, times.bigConversation),
        baseline: ms(`${SMALL_CONVERSATION} messages`, times.smallConversation),
      },
      {
        figure: 'DELETE /api/users/{id}',
        subject: ms(`${USER_CONVERSATIONS} conversations × ${PER_CONVERSATION}`, times.bigUser),
        baseline: ms(`1 conversation × ${PER_CONVERSATION}`, times.smallUser),
      },
      {
        figure: `another user's loadMessages p99 (${LOAD_CONNECTIONS} connections)`,
        subject: p99(`during DELETE conversation of ${BIG_CONVERSATION.toLocaleString('en')}`, during('conversation')),
        baseline: quietFigure,
      },
      {
        figure: `another user's loadMessages p99 (${LOAD_CONNECTIONS} connections)`,
        subject: p99(`during DELETE user of ${USER_CONVERSATIONS}×${PER_CONVERSATION}`, during('user')),
        baseline: quietFigure,
      },
    ];
  } finally {
    await cleanup.run();
  }
}

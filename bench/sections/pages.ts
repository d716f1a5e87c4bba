import { createDatabase, seedMessages } from '../support/databases.js';
import { expectOk } from '../support/http.js';
import { measureOf, type Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';
import { Cleanup, startService, type RunningServer } from '../support/servers.js';

export const heading = 'loadMessages, one page of 50 after a cursor in the middle of the conversation (every branch, in the conversation order: `branch: "all"`; branch pages: the tree section), on PostgreSQL: median latency of sequential requests';
export const needsPostgres = true;

const USER = 'bench-pager';
const LIMIT = 50;
/** The middle block seeded first, so that the first page of each order ends in the middle. */
const BLOCK = 2 * LIMIT;
type Order = 'asc' | 'desc';
const ORDERS: Order[] = ['asc', 'desc'];

/**
 * A conversation of `size` messages whose asc and desc cursors both point into its middle,
 * whatever the cursor's format: the middle block is stored first, the first page of each order
 * read (its cursor is a position in that block), then the rest stored around it, earlier and later.
 */
async function seedConversation(service: RunningServer, databaseUrl: string, size: number): Promise<Record<Order, string>> {
  const conversationId = `pages-${size}`;
  const start = new Date(Date.now() - 7 * 86_400_000);
  await expectOk(service.url, 'POST', '/api/chat/saveMessage', {
    user_id: USER,
    conversation_id: conversationId,
    message_id: `${conversationId}-first`,
    role: 'user',
    text: 'The first message.',
    created_at: new Date(start.getTime() - 3_600_000).toISOString(),
  });
  const owner = [{ conversationId, userId: USER }];
  const middle: [number, number] = [Math.floor(size / 2) - BLOCK / 2 + 1, Math.floor(size / 2) + BLOCK / 2];
  await seedMessages(databaseUrl, { conversations: owner, first: middle[0], last: middle[1], start });
  const cursors = {} as Record<Order, string>;
  for (const order of ORDERS) {
    const page = await expectOk(service.url, 'POST', '/api/chat/loadMessages', { user_id: USER, conversation_id: conversationId, limit: LIMIT, order, branch: 'all' });
    cursors[order] = page.json.next_cursor;
  }
  await seedMessages(databaseUrl, { conversations: owner, first: 1, last: size - 1, skip: middle, start });
  return cursors;
}

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  const sizes = settings.pageSizes;
  if (sizes.length < 2 || sizes.some((size) => !Number.isInteger(size) || size < 4 * BLOCK)) {
    throw new Error(`BENCH_PAGE_SIZES must list at least two sizes of ${4 * BLOCK} messages or more`);
  }
  const cleanup = new Cleanup();
  try {
    const database = cleanup.add(await createDatabase(settings.adminUrl, 'pages'), (d) => d.drop());
    const service = cleanup.add(await startService('service', { databaseUrl: database.url }), (s) => s.stop());
    const cursors = new Map<number, Record<Order, string>>();
    for (const size of sizes) {
      const started = Date.now();
      cursors.set(size, await seedConversation(service, database.url, size));
      log(`seeded a conversation of ${size.toLocaleString('en')} messages in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }

    const page = async (size: number, order: Order) => {
      const body = { user_id: USER, conversation_id: `pages-${size}`, limit: LIMIT, order, branch: 'all', cursor: cursors.get(size)![order] };
      const answer = await expectOk(service.url, 'POST', '/api/chat/loadMessages', body);
      if (answer.json.messages.length !== LIMIT) throw new Error(`a page of ${size} (${order}) held ${answer.json.messages.length} messages`);
      return answer.ms;
    };
    for (const size of sizes) {
      const first = await Promise.all(ORDERS.map(async (order) => {
        const body = { user_id: USER, conversation_id: `pages-${size}`, limit: LIMIT, order, branch: 'all', cursor: cursors.get(size)![order] };
        return (await expectOk(service.url, 'POST', '/api/chat/loadMessages', body)).json.messages[0]?.message_id;
      }));
      log(`${size.toLocaleString('en')} messages: the pages after the cursors start at ${first.join(' (asc) and ')} (desc)`);
    }
    // Warm-up, then rounds that visit every size and order in turn, so noise falls on all alike.
    for (let i = 0; i < 20; i++) for (const size of sizes) for (const order of ORDERS) await page(size, order);
    const keys = sizes.flatMap((size) => ORDERS.map((order) => ({ size, order, key: `${size} ${order}` })));
    const times = new Map(keys.map(({ key }) => [key, [] as number[]]));
    for (let round = 0; round < settings.pageRequests; round++) {
      // Each round starts one step further along, so no size always follows the same one.
      for (let step = 0; step < keys.length; step++) {
        const { size, order, key } = keys[(round + step) % keys.length]!;
        times.get(key)!.push(await page(size, order));
      }
    }

    const figure = (size: number, order: Order) => ({
      label: `${size.toLocaleString('en')} messages`,
      measure: measureOf(times.get(`${size} ${order}`)!),
      unit: 'ms',
    });
    const [smallest, ...larger] = sizes as [number, ...number[]];
    const largest = larger.at(-1)!;
    return ORDERS.flatMap((order) =>
      larger.map((size) => ({
        figure: `one page after a middle cursor, ${order}`,
        subject: figure(size, order),
        baseline: figure(smallest, order),
        ...(size === largest && {
          target: { text: `a page (${order}) at ${size.toLocaleString('en')} messages against one at ${smallest.toLocaleString('en')}`, atMost: 1.2 },
        }),
      })),
    );
  } finally {
    await cleanup.run();
  }
}

import { createDatabase, serverOf } from '../support/databases.js';
import { expectOk } from '../support/http.js';
import type { Figure, Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';
import { Cleanup, COUNTED_ENV, migrateWithService, startBaseline, startService, type RunningServer } from '../support/servers.js';
import { startWireCounter, type WireCounter } from '../support/wire-counter.js';

export const heading = 'PostgreSQL round trips (and statements) per request, counted on the wire by a proxy; sequential requests';
export const needsPostgres = true;

const USER = 'bench-counted';

interface Operation {
  name: string;
  /** The n-th request of this operation; warm-up requests come first, with the same numbering. */
  request(n: number): { method: string; path: string; body?: unknown };
  /** The hand-written server does it too. */
  baseline: boolean;
}

const message = (n: number, prefix: string) => ({ message_id: `${prefix}-${n}`, role: n % 2 ? 'assistant' : 'user', text: `Message ${n}.` });
const session = (count: number) => (n: number) => ({
  method: 'POST',
  path: '/api/chat/saveSession',
  body: {
    user_id: USER,
    conversation_id: `session-${count}`,
    title: 'A counted session',
    messages: Array.from({ length: count }, (_, i) => message(n * count + i, `session-${count}`)),
  },
});

const OPERATIONS: Operation[] = [
  {
    name: 'saveMessage, existing conversation',
    baseline: true,
    request: (n) => ({ method: 'POST', path: '/api/chat/saveMessage', body: { user_id: USER, conversation_id: 'saved', ...message(n, 'saved') } }),
  },
  {
    name: 'saveMessage, new conversation',
    baseline: true,
    request: (n) => ({ method: 'POST', path: '/api/chat/saveMessage', body: { user_id: USER, conversation_id: `new-${n}`, ...message(n, 'new') } }),
  },
  {
    name: 'loadMessages, a page of 20',
    baseline: true,
    request: () => ({ method: 'POST', path: '/api/chat/loadMessages', body: { user_id: USER, conversation_id: 'saved', limit: 20 } }),
  },
  {
    name: 'POST /v1/chat, existing conversation',
    baseline: true,
    request: (n) => ({ method: 'POST', path: '/v1/chat', body: { user_id: USER, conversation_id: 'chatted', text: `Tell me about day ${n}.` } }),
  },
  {
    name: 'POST /v1/chat, new conversation',
    baseline: true,
    request: (n) => ({ method: 'POST', path: '/v1/chat', body: { user_id: USER, text: `Hello number ${n}.` } }),
  },
  { name: 'saveSession, 10 new messages', baseline: false, request: session(10) },
  { name: 'saveSession, 100 new messages', baseline: false, request: session(100) },
  {
    name: 'deleteMessages, 2 ids',
    baseline: false,
    request: (n) => ({
      method: 'DELETE',
      path: '/api/chat/deleteMessages',
      body: { user_id: USER, conversation_id: 'saved', message_ids: [`saved-${2 * n}`, `saved-${2 * n + 1}`] },
    }),
  },
  { name: 'list conversations, 20', baseline: false, request: () => ({ method: 'GET', path: `/api/chat/conversations?user_id=${USER}&limit=20` }) },
];

const WARM_UP = 5;

/** Round trips and statements per request of one operation, from `requests` sequential requests after a warm-up. */
async function count(server: RunningServer, counter: WireCounter, operation: Operation, requests: number): Promise<Figure> {
  const send = async (n: number) => {
    const { method, path, body } = operation.request(n);
    await expectOk(server.url, method, path, body);
  };
  for (let n = 0; n < WARM_UP; n++) await send(n);
  counter.reset();
  for (let n = WARM_UP; n < WARM_UP + requests; n++) await send(n);
  const { roundTrips, statements } = counter.counts();
  const [perRequest, statementsPerRequest] = [roundTrips / requests, Number((statements / requests).toFixed(2))];
  return {
    label: server.label,
    measure: { median: perRequest, min: perRequest, max: perRequest, samples: requests },
    unit: perRequest === 1 ? 'round trip' : 'round trips',
    note: `${statementsPerRequest} ${statementsPerRequest === 1 ? 'statement' : 'statements'}`,
  };
}

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  const cleanup = new Cleanup();
  try {
    const [serviceDb, baselineDb] = await Promise.all(['trips_service', 'trips_baseline'].map((purpose) => createDatabase(settings.adminUrl, purpose)));
    for (const database of [serviceDb!, baselineDb!]) cleanup.add(database, (d) => d.drop());
    const [serviceCounter, baselineCounter] = await Promise.all([0, 1].map(() => startWireCounter(serverOf(settings.adminUrl))));
    for (const counter of [serviceCounter!, baselineCounter!]) cleanup.add(counter, (c) => c.close());
    log('starting the service and the hand-written server, each behind a counting proxy');
    await migrateWithService(baselineDb!.url);
    const [service, baseline] = await Promise.all([
      startService('service', { databaseUrl: serviceCounter!.via(serviceDb!.url), env: COUNTED_ENV }),
      startBaseline('hand-written', 'pg-server', { DATABASE_URL: baselineCounter!.via(baselineDb!.url), ...COUNTED_ENV }),
    ]);
    for (const server of [service!, baseline!]) cleanup.add(server, (s) => s.stop());

    const rows: Row[] = [];
    for (const operation of OPERATIONS) {
      const subject = await count(service!, serviceCounter!, operation, settings.roundTripRequests);
      const against = operation.baseline ? await count(baseline!, baselineCounter!, operation, settings.roundTripRequests) : undefined;
      log(`${operation.name}: ${subject.measure.median} round trips${against ? ` (hand-written: ${against.measure.median})` : ''}`);
      rows.push({ figure: operation.name, subject, ...(against && { baseline: against }) });
    }
    return rows;
  } finally {
    await cleanup.run();
  }
}

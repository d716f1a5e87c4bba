import autocannon from 'autocannon';
import { createDatabase, serverOf, withClient } from '../support/databases.js';
import { expectOk } from '../support/http.js';
import { compareRates, rateFigure, type LoadTarget } from '../support/load.js';
import type { Figure, Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';
import { Cleanup, COUNTED_ENV, startService, type RunningServer } from '../support/servers.js';
import { startWireCounter, type WireCounter } from '../support/wire-counter.js';
import { chatBody } from '../support/workload.js';

export const heading =
  'POST /v1/chat (offline assistant) with usage limits on (LIMIT_REQUESTS_PER_MINUTE and LIMIT_TOKENS_PER_DAY, never reached) against off, in memory and on PostgreSQL (both on one database); PostgreSQL round trips per chat request, both ways';
export const needsPostgres = true;

/** Limits far above what the load reaches: every request is checked, none refused. */
const LIMITS_ON = { LIMIT_REQUESTS_PER_MINUTE: '1000000000', LIMIT_TOKENS_PER_DAY: '1000000000000' };
const COUNTED_USER = 'bench-limits-counted';

/** Round trips (and statements) per chat request of one known user, sequential, after a warm-up. */
async function roundTrips(server: RunningServer, counter: WireCounter, requests: number): Promise<Figure> {
  const send = (n: number) => expectOk(server.url, 'POST', '/v1/chat', { user_id: COUNTED_USER, conversation_id: 'limits-counted', text: `Tell me about day ${n}.` });
  for (let n = 0; n < 5; n++) await send(n);
  counter.reset();
  for (let n = 5; n < 5 + requests; n++) await send(n);
  const { roundTrips: trips, statements } = counter.counts();
  const perRequest = Number((trips / requests).toFixed(2));
  return {
    label: server.label,
    measure: { median: perRequest, min: perRequest, max: perRequest, samples: requests },
    unit: 'round trips',
    note: `${(statements / requests).toFixed(2)} statements`,
  };
}

async function analyze(url: string): Promise<void> {
  await withClient(url, (client) => client.query('analyze'));
}

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  const cleanup = new Cleanup();
  try {
    // One database for both: they load it in turns, so neither meets a fuller or a colder one.
    const database = cleanup.add(await createDatabase(settings.adminUrl, 'limits'), (d) => d.drop());
    const counters = await Promise.all([0, 1].map(() => startWireCounter(serverOf(settings.adminUrl))));
    for (const counter of counters) cleanup.add(counter, (c) => c.close());
    const [offCounter, onCounter] = counters as [WireCounter, WireCounter];
    log('starting the service with limits off and on, in memory and on PostgreSQL (behind counting proxies)');
    const servers = await Promise.all([
      startService('limits off, in memory'),
      startService('limits on, in memory', { env: LIMITS_ON }),
      startService('limits off, PostgreSQL', { databaseUrl: offCounter.via(database.url), env: COUNTED_ENV }),
      startService('limits on, PostgreSQL', { databaseUrl: onCounter.via(database.url), env: { ...LIMITS_ON, ...COUNTED_ENV } }),
    ]);
    for (const server of servers) cleanup.add(server, (s) => s.stop());
    const [memoryOff, memoryOn, pgOff, pgOn] = servers as [RunningServer, RunningServer, RunningServer, RunningServer];

    const body = chatBody(settings.conversations);
    const chat = (server: RunningServer): LoadTarget => ({ server, method: 'POST', path: '/v1/chat', body, status: 200 });
    // The database starts empty: fill it a little and ANALYZE, so that no server keeps plans made
    // for empty tables until autovacuum comes by.
    log('filling the database with a few conversations, then ANALYZE');
    let n = 1_000_000;
    const setupRequest = (request: autocannon.Request) => ({ ...request, body: JSON.stringify(body(n++)) });
    await autocannon({ url: pgOff.url, connections: 8, amount: 4 * settings.conversations, requests: [{ method: 'POST', path: '/v1/chat', headers: { 'content-type': 'application/json' }, setupRequest }] });
    await analyze(database.url);
    const [rateMemoryOff, rateMemoryOn, ratePgOff, ratePgOn] = await compareRates([memoryOff, memoryOn, pgOff, pgOn].map(chat), settings, log);
    const tripsOff = await roundTrips(pgOff, offCounter, settings.roundTripRequests);
    const tripsOn = await roundTrips(pgOn, onCounter, settings.roundTripRequests);
    log(`round trips per chat request: ${tripsOff.measure.median} off, ${tripsOn.measure.median} on`);

    return [
      {
        figure: 'POST /v1/chat in memory, limits on vs off',
        subject: rateFigure('limits on', rateMemoryOn!),
        baseline: rateFigure('limits off', rateMemoryOff!),
        target: { text: 'POST /v1/chat in memory with limits on (never reached) against off', atLeast: 0.95 },
      },
      {
        figure: 'POST /v1/chat on PostgreSQL, limits on vs off',
        subject: rateFigure('limits on', ratePgOn!),
        baseline: rateFigure('limits off', ratePgOff!),
        target: { text: 'POST /v1/chat on PostgreSQL with limits on (never reached) against off', atLeast: 0.95 },
      },
      {
        figure: 'round trips per POST /v1/chat, PostgreSQL, limits on vs off',
        subject: tripsOn,
        baseline: tripsOff,
        target: { text: 'no round trip added per chat request by the limits (at most 5% more, the batched syncs)', atMost: 1.05 },
      },
    ];
  } finally {
    await cleanup.run();
  }
}

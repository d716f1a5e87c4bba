import { createDatabase } from '../support/databases.js';
import { compareRates, rateFigure, type LoadTarget } from '../support/load.js';
import type { Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';
import { SERVICE_WARMUP_SECONDS } from '../support/settings.js';
import { Cleanup, migrateWithService, startBaseline, startService, type RunningServer } from '../support/servers.js';
import { chatBody } from '../support/workload.js';

export const heading =
  'POST /v1/chat (offline assistant) and GET /v1/health: the service on PostgreSQL and in memory, the hand-written server, bare Koa; the service on PostgreSQL without its statistics upkeep';
export const needsPostgres = true;

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  const cleanup = new Cleanup();
  try {
    const [serviceDb, baselineDb, unkeptDb] = await Promise.all(['chat_service', 'chat_baseline', 'chat_unkept'].map((purpose) => createDatabase(settings.adminUrl, purpose)));
    for (const database of [serviceDb!, baselineDb!, unkeptDb!]) cleanup.add(database, (d) => d.drop());
    log('starting the service on PostgreSQL and in memory, the hand-written server and bare Koa');
    await migrateWithService(baselineDb!.url);
    const servers = await Promise.all([
      startService('service on PostgreSQL', { databaseUrl: serviceDb!.url }),
      startBaseline('hand-written on PostgreSQL', 'pg-server', { DATABASE_URL: baselineDb!.url }),
      startService('service in memory'),
      startBaseline('bare Koa', 'koa-server'),
      // Where autovacuum is off (as on these machines), without the service's own ANALYZE its plans stay those of empty tables.
      startService('service on PostgreSQL, DATABASE_ANALYZE=off', { databaseUrl: unkeptDb!.url, env: { DATABASE_ANALYZE: 'off' } }),
    ]);
    for (const server of servers) cleanup.add(server, (s) => s.stop());
    const [servicePg, baselinePg, serviceMemory, bareKoa, unkeptPg] = servers as [RunningServer, RunningServer, RunningServer, RunningServer, RunningServer];

    const body = chatBody(settings.conversations);
    const chat = (server: RunningServer): LoadTarget => ({ server, method: 'POST', path: '/v1/chat', body, status: 200 });
    // Each warmed up as long as the service's JIT takes to settle under load, so that its steady rate is compared, not its first seconds'.
    const warmed = { ...settings, warmupSeconds: Math.max(settings.warmupSeconds, SERVICE_WARMUP_SECONDS) };
    const [chatPg, chatBaselinePg, chatMemory, chatKoa, chatUnkept] = await compareRates([servicePg, baselinePg, serviceMemory, bareKoa, unkeptPg].map(chat), warmed, log);
    const health = (server: RunningServer): LoadTarget => ({ server, method: 'GET', path: '/v1/health', status: 200 });
    const [healthMemory, healthKoa] = await compareRates([serviceMemory, bareKoa].map(health), settings, log);

    return [
      {
        figure: 'POST /v1/chat, PostgreSQL vs in memory',
        subject: rateFigure('service on PostgreSQL', chatPg!),
        baseline: rateFigure('service in memory', chatMemory!),
        target: { text: 'POST /v1/chat on PostgreSQL against the service in memory', atLeast: 0.5 },
      },
      {
        figure: 'POST /v1/chat, PostgreSQL',
        subject: rateFigure('service', chatPg!),
        baseline: rateFigure('hand-written', chatBaselinePg!),
        target: { text: 'POST /v1/chat on PostgreSQL against the hand-written server running the same statements', atLeast: 0.9 },
      },
      {
        figure: 'POST /v1/chat, in memory',
        subject: rateFigure('service', chatMemory!),
        baseline: rateFigure('bare Koa', chatKoa!),
        target: { text: 'POST /v1/chat in memory against bare Koa', atLeast: 0.5 },
      },
      {
        figure: 'POST /v1/chat, PostgreSQL: tables analyzed as they grow',
        subject: rateFigure('DATABASE_ANALYZE=auto', chatPg!),
        baseline: rateFigure('DATABASE_ANALYZE=off', chatUnkept!),
      },
      {
        figure: 'GET /v1/health, in memory',
        subject: rateFigure('service', healthMemory!),
        baseline: rateFigure('bare Koa', healthKoa!),
      },
    ];
  } finally {
    await cleanup.run();
  }
}

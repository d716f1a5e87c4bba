import { createDatabase, seedMessages } from '../support/databases.js';
import { eachLimited, expectOk } from '../support/http.js';
import { compareRates, rateFigure, type LoadTarget } from '../support/load.js';
import type { Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';
import { Cleanup, migrateWithService, startBaseline, startService, type RunningServer } from '../support/servers.js';
import { loadMessagesBody, READ_CONVERSATION_MESSAGES, saveMessageBody, userOf } from '../support/workload.js';

export const heading = 'HTTP saveMessage and loadMessages on PostgreSQL: the service against the hand-written node:http + pg server';
export const needsPostgres = true;

/** The `read-` conversations: made through each server's own API, then filled in one statement. */
async function seedReadConversations(server: RunningServer, databaseUrl: string, conversations: number): Promise<void> {
  const owners = Array.from({ length: conversations }, (_, k) => ({ conversationId: `read-${k}`, userId: userOf(k, conversations) }));
  const start = new Date(Date.now() - 86_400_000);
  await eachLimited(owners, 8, ({ conversationId, userId }) =>
    expectOk(server.url, 'POST', '/api/chat/saveMessage', {
      user_id: userId,
      conversation_id: conversationId,
      message_id: `${conversationId}-first`,
      role: 'user',
      text: 'The first message.',
      created_at: start.toISOString(),
    }),
  );
  await seedMessages(databaseUrl, { conversations: owners, first: 1, last: READ_CONVERSATION_MESSAGES - 1, start });
  // Both servers must serve full pages, or the comparison would flatter the one with less to send.
  const page = await expectOk(server.url, 'POST', '/api/chat/loadMessages', loadMessagesBody(conversations)(0));
  if (page.json.messages?.length !== 50) throw new Error(`${server.label}: a seeded conversation served ${page.json.messages?.length} messages, not 50`);
}

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  const cleanup = new Cleanup();
  try {
    const [serviceDb, baselineDb] = await Promise.all(['storage_service', 'storage_baseline'].map((purpose) => createDatabase(settings.adminUrl, purpose)));
    for (const database of [serviceDb!, baselineDb!]) cleanup.add(database, (d) => d.drop());
    log('starting the service on PostgreSQL and the hand-written server');
    await migrateWithService(baselineDb!.url);
    const [service, baseline] = await Promise.all([
      startService('service', { databaseUrl: serviceDb!.url }),
      startBaseline('hand-written', 'pg-server', { DATABASE_URL: baselineDb!.url }),
    ]);
    for (const server of [service!, baseline!]) cleanup.add(server, (s) => s.stop());
    await seedReadConversations(service!, serviceDb!.url, settings.conversations);
    await seedReadConversations(baseline!, baselineDb!.url, settings.conversations);

    const target = (server: RunningServer, path: string, body: (n: number) => unknown, status: number): LoadTarget => ({ server, method: 'POST', path, body, status });
    const saveBody = saveMessageBody(settings.conversations);
    const [serviceSave, baselineSave] = await compareRates(
      [target(service!, '/api/chat/saveMessage', saveBody, 201), target(baseline!, '/api/chat/saveMessage', saveBody, 201)],
      settings,
      log,
    );
    const loadBody = loadMessagesBody(settings.conversations);
    const [serviceLoad, baselineLoad] = await compareRates(
      [target(service!, '/api/chat/loadMessages', loadBody, 200), target(baseline!, '/api/chat/loadMessages', loadBody, 200)],
      settings,
      log,
    );
    return [
      {
        figure: 'POST /api/chat/saveMessage, PostgreSQL',
        subject: rateFigure('service', serviceSave!),
        baseline: rateFigure('hand-written', baselineSave!),
        target: { text: 'saveMessage on PostgreSQL against the hand-written server', atLeast: 0.8 },
      },
      {
        figure: 'POST /api/chat/loadMessages, PostgreSQL',
        subject: rateFigure('service', serviceLoad!),
        baseline: rateFigure('hand-written', baselineLoad!),
        target: { text: 'loadMessages on PostgreSQL against the hand-written server', atLeast: 0.8 },
      },
    ];
  } finally {
    await cleanup.run();
  }
}

import { readFileSync, createReadStream, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeChatGptFile } from '../support/chatgpt-file.js';
import { createDatabase } from '../support/databases.js';
import { measureOf, type Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';
import { Cleanup, startService, type RunningServer } from '../support/servers.js';

export const heading =
  "import and export on PostgreSQL: a generated ChatGPT-shaped conversations.json (BENCH_IMPORT_MB, default 50 and 200 MB) imported through POST /api/users/{id}/import, " +
  "then the same data exported as ndjson; messages per second, and the service's peak RSS growth during each (VmRSS of its process every 25 ms, less its RSS just before)";
export const needsPostgres = true;

/** Peak RSS growth allowed during an import or an export, whatever the file's size. */
const RSS_TARGET_MB = 150;

function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** `work` timed, with the growth of the process's RSS over its level before, at its peak. */
async function measured<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; seconds: number; growthMb: number }> {
  const base = rssMb(pid);
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 25);
  const started = performance.now();
  try {
    const result = await work();
    return { result, seconds: (performance.now() - started) / 1000, growthMb: Math.max(peak, rssMb(pid)) - base };
  } finally {
    clearInterval(timer);
  }
}

/** Sends the file as the body, streamed from disk; the answer's JSON. */
function postFile(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    createReadStream(path).on('error', reject).pipe(req);
  });
}

/** Reads an export to its end, counting bytes and lines (never holding it). */
async function readExport(url: string): Promise<{ bytes: number; lines: number }> {
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`export answered ${res.status}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 0x0a) lines++;
  }
  return { bytes, lines };
}

async function measureSize(service: RunningServer, megabytes: number, log: SectionContext['log']): Promise<Row[]> {
  const path = join(tmpdir(), `bench-chatgpt-${megabytes}mb-${process.pid}.json`);
  try {
    const file = await writeChatGptFile(path, megabytes * 1024 * 1024);
    const mb = (file.bytes / 1024 / 1024).toFixed(0);
    log(`transfer: ${mb} MB, ${file.conversations} conversations, ${file.messages} messages written; importing`);
    const user = `bench-transfer-${megabytes}`;
    // Warm-up: a small file through the same paths, so start-up costs (JIT, pools, buffers) are not counted as growth.
    const warm = `${path}.warm`;
    await writeChatGptFile(warm, 2 * 1024 * 1024, 11);
    await postFile(`${service.url}/api/users/bench-warm-up/import`, warm).finally(() => rmSync(warm, { force: true }));
    await readExport(`${service.url}/api/users/bench-warm-up/export?format=ndjson`);
    await sleep(500);
    const imported = await measured(service.pid, () => postFile(`${service.url}/api/users/${user}/import`, path));
    if (imported.result.status !== 200) throw new Error(`import answered ${imported.result.status}: ${imported.result.body.slice(0, 300)}`);
    const report = JSON.parse(imported.result.body) as { messages: { created: number }; errors: unknown[] };
    if (report.messages.created !== file.messages) throw new Error(`import created ${report.messages.created} messages of ${file.messages}: ${JSON.stringify(report.errors).slice(0, 300)}`);
    log(`transfer: imported in ${imported.seconds.toFixed(1)} s (+${imported.growthMb.toFixed(0)} MB RSS); exporting`);
    await sleep(500);
    const exported = await measured(service.pid, () => readExport(`${service.url}/api/users/${user}/export?format=ndjson`));
    if (exported.result.lines !== file.conversations) throw new Error(`export gave ${exported.result.lines} lines for ${file.conversations} conversations`);
    log(`transfer: exported ${(exported.result.bytes / 1024 / 1024).toFixed(0)} MB in ${exported.seconds.toFixed(1)} s (+${exported.growthMb.toFixed(0)} MB RSS)`);
    const label = `${mb} MB file`;
    const rate = (messages: number, seconds: number) => measureOf([messages / seconds]);
    return [
      { figure: `import, ChatGPT file of ${mb} MB`, subject: { label, measure: rate(file.messages, imported.seconds), unit: 'messages/s', note: `${file.messages.toLocaleString('en')} messages, ${file.conversations.toLocaleString('en')} conversations in ${imported.seconds.toFixed(1)} s` } },
      { figure: `import ${mb} MB: peak RSS growth`, subject: { label, measure: measureOf([imported.growthMb]), unit: 'MB' }, target: { text: `under ${RSS_TARGET_MB} MB whatever the file's size`, valueBelow: RSS_TARGET_MB } },
      { figure: `export (ndjson) of the same data`, subject: { label, measure: rate(file.messages, exported.seconds), unit: 'messages/s', note: `${(exported.result.bytes / 1024 / 1024).toFixed(0)} MB in ${exported.seconds.toFixed(1)} s` } },
      { figure: `export ${mb} MB: peak RSS growth`, subject: { label, measure: measureOf([exported.growthMb]), unit: 'MB' }, target: { text: `under ${RSS_TARGET_MB} MB whatever the data's size`, valueBelow: RSS_TARGET_MB } },
    ];
  } finally {
    rmSync(path, { force: true });
  }
}

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  const rows: Row[] = [];
  for (const megabytes of settings.importSizesMb) {
    const cleanup = new Cleanup();
    try {
      // A fresh database and service per size: each import starts from the same state.
      const database = cleanup.add(await createDatabase(settings.adminUrl, `transfer_${megabytes}`), (d) => d.drop());
      const service = cleanup.add(
        await startService(`service (${megabytes} MB)`, { databaseUrl: database.url, env: { IMPORT_MAX_BYTES: String(4 * 1024 * 1024 * 1024), REQUEST_TIMEOUT_MS: '3600000' } }),
        (s) => s.stop(),
      );
      rows.push(...(await measureSize(service, megabytes, log)));
    } finally {
      await cleanup.run();
    }
  }
  return rows;
}

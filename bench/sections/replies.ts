import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDatabase, serverOf } from '../support/databases.js';
import { pacedModelEnvironment, startPacedModelServer, type PacedModelServer, type ReplyPlan } from '../support/paced-model-server.js';
import { measureOf, type Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';
import { Cleanup, COUNTED_ENV, startService, type RunningServer } from '../support/servers.js';
import { readReply } from '../support/sse-reader.js';
import { startWireCounter, type WireCounter } from '../support/wire-counter.js';

export const heading =
  'Durable replies on PostgreSQL, the model a local paced OpenAI-compatible server: server memory with slow readers, database round trips per reply (piece delays across instances: the live section)';
export const needsPostgres = true;

const READERS = 100;
/** About 100 KB per reply, over about 2 s. */
const LONG: ReplyPlan = { pieces: 100, size: 1000, delayMs: 20 };

const chat = (plan: ReplyPlan, n: number) => ({ user_id: `bench-replies-${n % 10}`, text: JSON.stringify(plan) });

/** The resident set of a process, in MB (0 once it is gone). */
function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The highest RSS of a process while it runs, sampled every 25 ms. */
function sampleRss(pid: number): { stop(): number } {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 25);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, rssMb(pid));
    },
  };
}

/**
 * (a) RSS growth of a fresh service while `READERS` clients each stream a long reply: fast
 * readers take every event as it comes; slow ones take nothing in (their sockets paused) until
 * every reply has been written in full, then read it all.
 */
async function memoryRun(kind: 'slow' | 'fast', databaseUrl: string, model: PacedModelServer): Promise<number> {
  const service = await startService(`service, ${kind} readers`, { databaseUrl, env: pacedModelEnvironment(model) });
  try {
    const url = `${service.url}/v1/chat/stream`;
    // Warm-up: the same path, smaller replies, so JIT and pools are not counted as growth.
    await Promise.all(Array.from({ length: 20 }, (_, n) => readReply(url, { body: chat({ ...LONG, pieces: 10 }, n) })));
    await sleep(500);
    const base = rssMb(service.pid);
    const sampler = sampleRss(service.pid);
    let release!: () => void;
    const paused = kind === 'slow' ? new Promise<void>((resolve) => (release = resolve)) : undefined;
    const finishedBefore = model.finished;
    let results: Awaited<ReturnType<typeof readReply>>[];
    let peak: number;
    try {
      const reads = Array.from({ length: READERS }, (_, n) => readReply(url, { body: chat(LONG, n), pausedUntil: paused }));
      if (paused) {
        while (model.finished < finishedBefore + READERS) await sleep(50);
        await sleep(1000); // the service stores the ends; the readers still hold back
        release();
      }
      results = await Promise.all(reads);
    } finally {
      peak = sampler.stop();
    }
    const whole = results.filter((r) => r.end?.event === 'done' && r.text.length === LONG.pieces * LONG.size).length;
    if (whole !== READERS) throw new Error(`${kind} readers: ${READERS - whole} of ${READERS} replies came incomplete`);
    return peak - base;
  } finally {
    await service.stop();
  }
}

/** (b) Round trips of one streamed reply, whole request (begin, progress writes, end), counted on the wire. */
async function countReply(service: RunningServer, counter: WireCounter, plan: ReplyPlan, n: number): Promise<{ roundTrips: number; seconds: number }> {
  counter.reset();
  const started = Date.now();
  const reply = await readReply(`${service.url}/v1/chat/stream`, { body: chat(plan, n) });
  if (reply.end?.event !== 'done') throw new Error(`the counted reply ended with ${JSON.stringify(reply.end)}`);
  const seconds = (Date.now() - started) / 1000;
  await sleep(100); // nothing of this reply is left to write
  return { roundTrips: counter.counts().roundTrips, seconds };
}

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  const cleanup = new Cleanup();
  try {
    const model = cleanup.add(await startPacedModelServer(), (m) => m.stop());
    const database = cleanup.add(await createDatabase(settings.adminUrl, 'replies'), (d) => d.drop());
    const rows: Row[] = [];

    // (a) memory: fresh services, slow and fast runs interleaved.
    const growth = { slow: [] as number[], fast: [] as number[] };
    for (let run = 1; run <= settings.runs; run++) {
      for (const kind of ['slow', 'fast'] as const) {
        growth[kind].push(await memoryRun(kind, database.url, model));
        log(`memory run ${run}, ${kind} readers: +${growth[kind].at(-1)!.toFixed(0)} MB`);
      }
    }
    const mb = (label: string, samples: number[], note: string) => ({ label, measure: measureOf(samples), unit: 'MB', note });
    rows.push({
      figure: `RSS growth, ${READERS} streams of ${(LONG.pieces * LONG.size) / 1000} KB`,
      subject: mb('slow readers', growth.slow, 'paused until every reply was written'),
      baseline: mb('fast readers', growth.fast, 'reading as it comes'),
      target: { text: `server memory with ${READERS} slow readers against ${READERS} fast ones`, atMost: 1.5 },
    });

    // (b) round trips per reply: the service behind a counting proxy.
    const counter = cleanup.add(await startWireCounter(serverOf(settings.adminUrl)), (c) => c.close());
    const counted = cleanup.add(await startService('service, counted', { databaseUrl: counter.via(database.url), env: { ...pacedModelEnvironment(model), ...COUNTED_ENV } }), (s) => s.stop());
    for (let n = 0; n < 3; n++) await countReply(counted, counter, { pieces: 5, size: 10, delayMs: 0 }, n);
    for (const plan of [
      { pieces: 10, size: 20, delayMs: 0 },
      { pieces: 100, size: 20, delayMs: 20 },
      { pieces: 1000, size: 20, delayMs: 2 },
      { pieces: 500, size: 20, delayMs: 10 },
    ]) {
      const samples = [];
      for (let n = 0; n < 3; n++) samples.push(await countReply(counted, counter, plan, n));
      const trips = measureOf(samples.map((s) => s.roundTrips));
      const seconds = measureOf(samples.map((s) => s.seconds)).median;
      log(`a reply of ${plan.pieces} deltas over ${seconds.toFixed(1)} s: ${trips.median} round trips`);
      rows.push({
        figure: `round trips per reply of ${plan.pieces} deltas, ${plan.delayMs} ms apart`,
        subject: { label: 'database', measure: trips, unit: 'round trips', note: `reply took ${seconds.toFixed(1)} s` },
        baseline: { label: 'model', measure: measureOf([plan.pieces]), unit: 'deltas' },
      });
    }

    return rows;
  } finally {
    await cleanup.run();
  }
}

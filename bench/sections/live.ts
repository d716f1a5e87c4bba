import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { serviceCpuMeter, type CpuMeter } from '../support/cpu-meter.js';
import { createDatabase } from '../support/databases.js';
import { loadRun, type LoadTarget } from '../support/load.js';
import { liveChat, streamingRepliesApart } from '../support/live-streams.js';
import { pacedModelEnvironment, startPacedModelProcess, STAMP, type ReplyPlan } from '../support/paced-model-server.js';
import { measureOf, type Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';
import { Cleanup, startService, type RunningServer } from '../support/servers.js';
import { SERVICE_WARMUP_SECONDS } from '../support/settings.js';
import { readReply } from '../support/sse-reader.js';
import { saveMessageBody } from '../support/workload.js';

export const heading =
  'Live replies across instances on PostgreSQL (the model a local paced OpenAI-compatible server): how late a piece reaches a follower on another instance, and saveMessage on a third instance while 1,000 followed replies stream';
export const needsPostgres = true;

/** Two meters read over the same runs as one: their CPU seconds summed. */
function bothMeters(a: CpuMeter, b: CpuMeter): CpuMeter {
  return {
    start: async () => void (await Promise.all([a.start(), b.start()])),
    stop: async () => {
      const [x, y] = await Promise.all([a.stop(), b.stop()]);
      if ('unreadable' in x) return x;
      if ('unreadable' in y) return y;
      return { seconds: x.seconds + y.seconds };
    },
  };
}

/** Replies streaming while saveMessage is measured: half produced on each of two instances, each followed from the other. */
const STREAMS = Number(process.env.BENCH_LIVE_STREAMS ?? 1000);
/** The application name of the writing instance's connections. */
const WRITER_APPLICATION = 'bench-live-writer';
/** DATABASE_TIMEOUT_MS of the two streaming instances (see `run`). */
const BURST_TIMEOUT_MS = 15_000;

const percentile = (samples: number[], p: number) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor((samples.length * p) / 100))]!;

/**
 * Milliseconds from each stamped piece leaving the model to reaching a listener: on the
 * producing instance, and on the other one (a resume there from the reply's start, its
 * catch-up left out), for the same pieces of the same replies.
 */
async function latencies(producer: RunningServer, other: RunningServer, replies: number): Promise<{ same: number[]; other: number[] }> {
  const plan: ReplyPlan = { pieces: 100, size: 40, delayMs: 30, stamp: true };
  const same: number[] = [];
  const elsewhere: number[] = [];
  const collect = (into: number[], skipFirst: boolean) => {
    let first = skipFirst;
    return (text: string, at: number) => {
      if (first) return void (first = false);
      for (const match of text.matchAll(STAMP)) into.push(at - Number(match[1]));
    };
  };
  await Promise.all(
    Array.from({ length: replies }, async (_, n) => {
      const user = liveChat(plan, n).user_id;
      let resumed: Promise<unknown> = Promise.resolve();
      await readReply(`${producer.url}/v1/chat/stream`, {
        body: liveChat(plan, n),
        onDelta: collect(same, false),
        onStart: (messageId) => {
          resumed = readReply(`${other.url}/v1/chat/stream/${messageId}?user_id=${user}`, { onDelta: collect(elsewhere, true) });
        },
      });
      await resumed;
    }),
  );
  return { same, other: elsewhere };
}

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  const cleanup = new Cleanup();
  try {
    // The model and the streams' clients run in processes of their own: the bench process's event loop is the load generator's.
    const model = cleanup.add(await startPacedModelProcess(), (m) => m.stop());
    const database = cleanup.add(await createDatabase(settings.adminUrl, 'live'), (d) => d.drop());
    // The streaming instances each take 500 stream begins and 500 resumes in the same instant: their
    // pools (10 connections) are waited for longer than the default 3 s bound, past which a request gets 503.
    const streamingEnv = { ...pacedModelEnvironment(model), DATABASE_TIMEOUT_MS: String(BURST_TIMEOUT_MS) };
    const [first, second, writer] = await Promise.all([
      startService('first instance', { databaseUrl: database.url, env: streamingEnv }),
      startService('second instance', { databaseUrl: database.url, env: streamingEnv }),
      // Its connections carry an application name of their own, so the CPU its PostgreSQL backends spend can be told apart.
      startService('writing instance', { databaseUrl: `${database.url}?application_name=${WRITER_APPLICATION}` }),
    ]);
    for (const server of [first!, second!, writer!]) cleanup.add(server, (s) => s.stop());
    const rows: Row[] = [];

    // (a) how late each piece reaches a follower on the other instance, against the producer's own listener.
    const { same, other } = await latencies(first!, second!, 5);
    log(`piece delay: same instance median ${measureOf(same).median} ms, other instance median ${measureOf(other).median} ms, p95 ${percentile(other, 95)} ms`);
    const ms = (label: string, samples: number[]) => ({ label, measure: measureOf(samples), unit: 'ms', note: `p95 ${percentile(samples, 95)} ms, ${samples.length} pieces` });
    rows.push({ figure: 'piece delay, model to listener', subject: ms('other instance', other), baseline: ms('same instance', same) });
    rows.push({
      figure: 'piece delay on the other instance, median',
      subject: ms('other instance', other),
      baseline: ms('same instance', same),
      target: { text: 'median delay of a piece to a follower on another instance', valueBelow: 20 },
    });
    const p95 = (samples: number[]) => measureOf([percentile(samples, 95)]);
    rows.push({
      figure: 'piece delay on the other instance, p95',
      subject: { label: 'other instance', measure: p95(other), unit: 'ms' },
      baseline: { label: 'same instance', measure: p95(same), unit: 'ms' },
      target: { text: 'p95 delay of a piece to a follower on another instance', valueBelow: 50 },
    });

    // (b) saveMessage on a third instance, alone and while STREAMS followed replies stream (rounds alternate).
    const save: LoadTarget = { server: writer!, method: 'POST', path: '/api/chat/saveMessage', body: saveMessageBody(settings.conversations), status: 201 };
    // Long enough to cover a measured run with its start-up: pieces every 500 ms (a reply at a reader's pace).
    const plan: ReplyPlan = { pieces: Math.ceil((settings.seconds + 20) * 2), size: 20, delayMs: 500 };
    // Warmed up as long as the service's JIT takes to settle under load: after the usual 1 s, the
    // first run alone was measured cold, at half the later runs' rate per CPU second.
    await loadRun(save, Math.max(settings.warmupSeconds, SERVICE_WARMUP_SECONDS), settings.connections);
    // What a request costs the writing instance and its PostgreSQL backends, whatever share of the cores it got.
    const monitor = cleanup.add(new pg.Pool({ connectionString: settings.adminUrl, max: 1 }), (p) => p.end());
    const meter = serviceCpuMeter(writer!.pid, monitor, database.name, WRITER_APPLICATION);
    // What the streaming costs the two streaming instances and their PostgreSQL backends (their
    // connections carry the service's default application names: one meter takes the first
    // instance and the statements' backends of both, the other the second and the notification
    // connections, the writing instance's among them, which hears only the follows), followed or
    // not, over the same measured runs.
    const streamingMeter = bothMeters(
      serviceCpuMeter(first!.pid, monitor, database.name, 'assistant-backend'),
      serviceCpuMeter(second!.pid, monitor, database.name, 'assistant-backend-notifications'),
    );
    type Kind = 'alone' | 'unfollowed' | 'followed';
    /** Per kind of run: its rates, and its requests per CPU second where the CPU could be read. */
    const measures: Record<Kind, { rates: number[]; perCpu: number[] }> = { alone: { rates: [], perCpu: [] }, unfollowed: { rates: [], perCpu: [] }, followed: { rates: [], perCpu: [] } };
    /** Per kind of streaming run: the streaming instances' CPU, as a share of one core (%). */
    const streamingShare: Record<'unfollowed' | 'followed', number[]> = { unfollowed: [], followed: [] };
    /** One measured run of saveMessage: its figures, kept under `kind`, and a line saying them. */
    const measured = async (kind: Kind) => {
      await meter.start();
      const run = await loadRun(save, settings.seconds, settings.connections);
      const cpu = await meter.stop();
      measures[kind].rates.push(run.rate);
      if ('seconds' in cpu && cpu.seconds > 0) measures[kind].perCpu.push(run.good / cpu.seconds);
      else log(`no CPU figure for this run: ${'unreadable' in cpu ? cpu.unreadable : 'no CPU time'}`);
      return `saveMessage ${kind === 'alone' ? 'alone' : `beside ${STREAMS} ${kind} replies`}: ${Math.round(run.rate)} req/s${'seconds' in cpu ? `, ${Math.round(run.good / cpu.seconds)} per CPU second` : ''}`;
    };
    const beside = async (follow: boolean) => {
      const streaming = await streamingRepliesApart({ a: first!.url, b: second!.url, plan, follow, streams: STREAMS });
      await streamingMeter.start();
      const started = performance.now();
      const line = await measured(follow ? 'followed' : 'unfollowed');
      const cpu = await streamingMeter.stop();
      const share = 'seconds' in cpu ? (100 * cpu.seconds) / ((performance.now() - started) / 1000) : null;
      if (share !== null) streamingShare[follow ? 'followed' : 'unfollowed'].push(share);
      log(`${line}; the streaming instances: ${share === null ? `no CPU figure (${'unreadable' in cpu ? cpu.unreadable : ''})` : `${Math.round(share)}% of a core`}`);
      await streaming.done;
      await sleep(500);
    };
    // The order of the three kinds rotates round by round (alone, followed, unfollowed; then
    // followed, unfollowed, alone; …), so each takes each place in turn and a drift over the runs
    // (the writer's tables grow, and slow it a little run by run) falls on all three alike.
    const kinds: Kind[] = ['alone', 'followed', 'unfollowed'];
    for (let round = 0; round < settings.runs; round++) {
      for (let place = 0; place < kinds.length; place++) {
        const kind = kinds[(round + place) % kinds.length]!;
        if (kind === 'alone') log(await measured('alone'));
        else await beside(kind === 'followed');
      }
    }
    const { alone, unfollowed, followed } = measures;
    const rate = (label: string, samples: number[], note?: string) => ({ label, measure: measureOf(samples), unit: 'req/s', note });
    const pace = `a piece every ${plan.delayMs} ms each`;
    rows.push({
      figure: `saveMessage on a third instance, ${STREAMS} followed replies streaming`,
      subject: rate(`beside ${STREAMS} followed replies`, followed.rates, pace),
      baseline: rate('alone', alone.rates),
      target: { text: `saveMessage while ${STREAMS} replies stream on two other instances, each followed from the other`, atLeast: 0.8 },
    });
    rows.push({
      figure: `saveMessage on a third instance: what following ${STREAMS} replies costs`,
      subject: rate(`beside ${STREAMS} followed replies`, followed.rates, pace),
      baseline: rate(`beside ${STREAMS} unfollowed replies`, unfollowed.rates, pace),
    });
    if (streamingShare.followed.length > 0 && streamingShare.unfollowed.length > 0) {
      const share = (label: string, samples: number[]) => ({ label, measure: measureOf(samples), unit: '% of a core' });
      rows.push({
        figure: `CPU of the two streaming instances and their PostgreSQL backends while ${STREAMS} replies stream: what following costs`,
        subject: share('followed', streamingShare.followed),
        baseline: share('unfollowed', streamingShare.unfollowed),
      });
    }
    if (alone.perCpu.length > 0 && followed.perCpu.length > 0) {
      const cpuRate = (label: string, samples: number[]) => ({ label, measure: measureOf(samples), unit: 'req/CPU s' });
      rows.push({
        figure: `saveMessage per CPU second of the writing instance and its PostgreSQL backends, ${STREAMS} followed replies streaming`,
        subject: cpuRate(`beside ${STREAMS} followed replies`, followed.perCpu),
        baseline: cpuRate('alone', alone.perCpu),
      });
    }
    return rows;
  } finally {
    await cleanup.run();
  }
}

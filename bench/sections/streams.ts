import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request, type IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createParser } from 'eventsource-parser';
import { pacedModelEnvironment, startPacedModelProcess, type PacedModelProcess, type ReplyPlan } from '../support/paced-model-server.js';
import { measureOf, type Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';
import { Cleanup, startBaseline, startService, type RunningServer } from '../support/servers.js';

export const heading =
  'BENCH_STREAMS (1,000) concurrent POST /v1/chat/stream on one instance in memory, the model a paced OpenAI-compatible server in a process of its own, ' +
  'against a minimal relay (node:http, fetch, eventsource-parser) of the same model: first delta, CPU time and peak RSS of the server process';

/** The reply every stream asks for: 20 pieces, 100 ms apart (about 2 s). */
const PLAN: ReplyPlan = { pieces: 20, size: 40, delayMs: 100 };
/** Streams at once before each measured run, so start-up and JIT are not what is measured. */
const WARM_UP: { streams: number; plan: ReplyPlan } = { streams: 200, plan: { pieces: 5, size: 40, delayMs: 20 } };
/** A run whose streams have not all ended by then has failed. */
const RUN_TIMEOUT_MS = 120_000;

/** `untitled`: the service with TITLE_MODE=first_message, one model call per stream as the relay's (the default asks the model for each new conversation's title too). */
type Subject = 'service' | 'untitled' | 'relay';

interface Streamed {
  /** Milliseconds from sending the request to the first delta (-1: none came). */
  firstDeltaMs: number;
  text: string;
  /** The last event's name (`done` for a complete reply) and data. */
  last: string;
  lastData: string;
}

interface RunResult {
  firstDelta: number[];
  /** Seconds of CPU (user and system) the server process used during the run. */
  cpuSeconds: number;
  /** The server's peak RSS during the run less its RSS just before, in MiB. */
  rssGrowthMiB: number;
  /** Milliseconds from the first request to the last stream's end. */
  wallMs: number;
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User and system CPU time of a process so far, in seconds (/proc/<pid>/stat, fields 14 and 15). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

function rssMiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The machine's count of connections dropped because a listen queue was full (TcpExt ListenOverflows). */
function listenOverflows(): number {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((line) => line.startsWith('TcpExt:'));
    const names = lines[0]!.split(/\s+/);
    const values = lines[1]!.split(/\s+/);
    return Number(values[names.indexOf('ListenOverflows')] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * One streamed reply over node:http, through the shared agent: the time to its first delta,
 * its text and its last event. The same client reads both subjects (the relay speaks the
 * service's `start`, `delta`, `done`).
 */
function stream(agent: Agent, url: string, plan: ReplyPlan, n: number): Promise<Streamed> {
  const body = JSON.stringify({ user_id: `bench-streams-${n % 100}`, text: JSON.stringify(plan) });
  return new Promise((resolve, reject) => {
    const result: Streamed = { firstDeltaMs: -1, text: '', last: '', lastData: '' };
    const started = performance.now();
    const parser = createParser({
      onEvent: (event) => {
        result.last = event.event ?? '';
        result.lastData = event.data;
        if (event.event !== 'delta') return;
        if (result.firstDeltaMs < 0) result.firstDeltaMs = performance.now() - started;
        result.text += (JSON.parse(event.data) as { text: string }).text;
      },
    });
    const req = request(`${url}/v1/chat/stream`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`stream ${n} answered ${res.statusCode}`));
      }
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => parser.feed(chunk));
      res.on('end', () => resolve(result));
      res.on('error', reject);
    });
    req.end(body);
  });
}

/** `count` streams at once; each checked whole (every character, then `done`). */
export async function streamAll(server: RunningServer, count: number, plan: ReplyPlan): Promise<Streamed[]> {
  // One agent, no limit on sockets and no keep-alive: a connection per stream, for either subject alike.
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  let timer: NodeJS.Timeout | undefined;
  try {
    const all = Promise.all(Array.from({ length: count }, (_, n) => stream(agent, server.url, plan, n)));
    const timeUp = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${server.label}: streams still open after ${RUN_TIMEOUT_MS / 1000} s`)), RUN_TIMEOUT_MS)));
    const results = await Promise.race([all, timeUp]);
    const broken = results.filter((r) => r.last !== 'done' || r.text.length !== plan.pieces * plan.size);
    if (broken.length > 0) {
      const example = broken[0]!;
      throw new Error(`${server.label}: ${broken.length} of ${count} streams incomplete (one ended with "${example.last}" after ${example.text.length} of ${plan.pieces * plan.size} characters: ${example.lastData.slice(0, 200)})`);
    }
    return results;
  } finally {
    clearTimeout(timer);
    agent.destroy();
  }
}

function startSubject(subject: Subject, model: PacedModelProcess, extraEnv: Record<string, string> = {}): Promise<RunningServer> {
  if (subject !== 'relay') {
    const titles: Record<string, string> = subject === 'untitled' ? { TITLE_MODE: 'first_message' } : {};
    return startService(subject === 'service' ? 'service in memory' : 'service in memory, titles from the first message', { env: { ...pacedModelEnvironment(model), ...titles, ...extraEnv } });
  }
  return startBaseline('relay', 'relay-server', { MODEL_BASE_URL: model.baseUrl, MODEL: 'paced-1', ...extraEnv });
}

/** The streams of the promise count: fewer than the timed runs', as the hook slows the server. */
const COUNTED = { streams: 100, pieces: 41 };
const PROMISE_COUNTER = fileURLToPath(new URL('../support/promise-counter.mjs', import.meta.url));

interface PromiseCount {
  /** Promises made for one stream of one piece, from its request to its end. */
  perStream: number;
  /** Promises made for each further piece of a stream. */
  perPiece: number;
}

/**
 * How many promises a subject's process makes per stream and per piece (promise-counter.mjs,
 * loaded with --import): counted around 100 streams of one piece, then 100 of 41, after the
 * same warm-up as the timed runs. A count, not a time, so far steadier than the times; but the
 * reading of the model's answer makes its promises per read of the socket, so the count per piece
 * still moves with how many pieces a busy server reads at once.
 */
async function countPromises(subject: Subject, model: PacedModelProcess): Promise<PromiseCount> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-promises-'));
  const file = join(dir, 'count');
  const server = await startSubject(subject, model, { NODE_OPTIONS: `--import=${PROMISE_COUNTER}`, PROMISE_COUNT_FILE: file });
  // Each read removes the last count, signals, and waits for the new one.
  const read = async (): Promise<number> => {
    rmSync(file, { force: true });
    process.kill(server.pid, 'SIGUSR2');
    for (let waited = 0; waited < 5000; waited += 20) {
      await sleep(20);
      if (existsSync(file)) return Number(readFileSync(file, 'utf8'));
    }
    throw new Error(`${server.label}: the promise count was not written (is ${PROMISE_COUNTER} loaded?)`);
  };
  try {
    await streamAll(server, WARM_UP.streams, WARM_UP.plan);
    await sleep(500);
    const start = await read();
    await streamAll(server, COUNTED.streams, { ...WARM_UP.plan, pieces: 1 });
    await sleep(100);
    const onePiece = await read();
    await streamAll(server, COUNTED.streams, { ...WARM_UP.plan, pieces: COUNTED.pieces });
    await sleep(100);
    const manyPieces = await read();
    const perStream = (onePiece - start) / COUNTED.streams;
    const perLongStream = (manyPieces - onePiece) / COUNTED.streams;
    return { perStream, perPiece: (perLongStream - perStream) / (COUNTED.pieces - 1) };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A fresh server: warmed up, then `count` streams at once, its CPU time and RSS read around them. */
async function measureRun(subject: Subject, model: PacedModelProcess, count: number): Promise<RunResult> {
  const server = await startSubject(subject, model);
  try {
    await streamAll(server, WARM_UP.streams, WARM_UP.plan);
    await sleep(500);
    const rssBefore = rssMiB(server.pid);
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.pid))), 25);
    const cpuBefore = cpuSeconds(server.pid);
    const started = performance.now();
    let results: Streamed[];
    try {
      results = await streamAll(server, count, PLAN);
    } finally {
      clearInterval(sampler);
    }
    const wallMs = performance.now() - started;
    const cpu = cpuSeconds(server.pid) - cpuBefore;
    peak = Math.max(peak, rssMiB(server.pid));
    return { firstDelta: results.map((r) => r.firstDeltaMs), cpuSeconds: cpu, rssGrowthMiB: peak - rssBefore, wallMs };
  } finally {
    await server.stop();
  }
}

const percentile = (samples: number[], p: number) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor((samples.length * p) / 100))]!;
const median = (samples: number[]) => measureOf(samples).median;

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  const cleanup = new Cleanup();
  try {
    const model = cleanup.add(await startPacedModelProcess(), (m) => m.stop());
    const count = settings.streams;
    const runs: Record<Subject, RunResult[]> = { service: [], untitled: [], relay: [] };
    for (let round = 1; round <= settings.runs; round++) {
      const order: Subject[] = round % 2 === 1 ? ['service', 'untitled', 'relay'] : ['relay', 'untitled', 'service'];
      for (const subject of order) {
        const overflowsBefore = listenOverflows();
        const result = await measureRun(subject, model, count);
        runs[subject].push(result);
        log(
          `run ${round}, ${subject}: first delta median ${median(result.firstDelta).toFixed(0)} ms, p95 ${percentile(result.firstDelta, 95).toFixed(0)} ms; ` +
            `CPU ${result.cpuSeconds.toFixed(2)} s; RSS +${result.rssGrowthMiB.toFixed(0)} MiB; all ended in ${(result.wallMs / 1000).toFixed(1)} s; ` +
            `listen queue overflows (machine-wide) ${listenOverflows() - overflowsBefore}`,
        );
      }
    }
    const promises = {} as Record<Subject, PromiseCount>;
    for (const subject of ['service', 'untitled', 'relay'] as const) {
      promises[subject] = await countPromises(subject, model);
      log(`promises, ${subject}: ${promises[subject].perStream.toFixed(1)} per stream of one piece, ${promises[subject].perPiece.toFixed(1)} per further piece`);
    }
    const counted = (label: string, value: number, unit: string) => ({ label, unit, measure: measureOf([value]) });
    const per1000 = (mib: number) => (mib * 1000) / count;
    const figure = (label: string, unit: string, samples: number[], note?: string) => ({ label, unit, measure: measureOf(samples), ...(note ? { note } : {}) });
    const firstDelta = (subject: Subject) =>
      figure(subject, 'ms', runs[subject].map((r) => median(r.firstDelta)), `p95 ${median(runs[subject].map((r) => percentile(r.firstDelta, 95))).toFixed(0)} ms`);
    const streamsText = count.toLocaleString('en');
    return [
      {
        figure: `first delta, median of ${streamsText} concurrent streams (${PLAN.pieces} pieces ${PLAN.delayMs} ms apart)`,
        subject: firstDelta('service'),
        baseline: firstDelta('relay'),
        target: { text: `first delta at ${streamsText} concurrent streams against a minimal relay's`, atMost: 1.5 },
      },
      {
        figure: `CPU time of the server process, ${streamsText} streams`,
        subject: figure('service', 's', runs.service.map((r) => r.cpuSeconds)),
        baseline: figure('relay', 's', runs.relay.map((r) => r.cpuSeconds)),
        target: { text: `CPU time of ${streamsText} concurrent streams against a minimal relay's`, atMost: 1.5 },
      },
      {
        figure: `first delta, ${streamsText} streams: the service with titles from the first message (one model call per stream, as the relay's)`,
        subject: firstDelta('untitled'),
        baseline: firstDelta('relay'),
      },
      {
        figure: `CPU time, ${streamsText} streams: the service with titles from the first message`,
        subject: figure('untitled', 's', runs.untitled.map((r) => r.cpuSeconds)),
        baseline: figure('relay', 's', runs.relay.map((r) => r.cpuSeconds)),
      },
      {
        figure: `promises made per streamed piece (async_hooks count, ${COUNTED.streams} streams of ${COUNTED.pieces} pieces less ${COUNTED.streams} of one)`,
        subject: counted('service', promises.service.perPiece, 'promises'),
        baseline: counted('relay', promises.relay.perPiece, 'promises'),
      },
      {
        figure: 'promises made per stream of one piece, from its request to its end (the service: its title call too)',
        subject: counted('service', promises.service.perStream, 'promises'),
        baseline: counted('relay', promises.relay.perStream, 'promises'),
      },
      {
        figure: 'promises made per stream of one piece: the service with titles from the first message',
        subject: counted('untitled', promises.untitled.perStream, 'promises'),
        baseline: counted('relay', promises.relay.perStream, 'promises'),
      },
      {
        figure: 'peak RSS growth per 1,000 streams',
        subject: figure('service', 'MiB', runs.service.map((r) => per1000(r.rssGrowthMiB)), `all ended in ${(median(runs.service.map((r) => r.wallMs)) / 1000).toFixed(1)} s`),
        baseline: figure('relay', 'MiB', runs.relay.map((r) => per1000(r.rssGrowthMiB)), `all ended in ${(median(runs.relay.map((r) => r.wallMs)) / 1000).toFixed(1)} s`),
      },
    ];
  } finally {
    await cleanup.run();
  }
}

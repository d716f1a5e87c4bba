import autocannon from 'autocannon';
import type { CpuMeter } from './cpu-meter.js';
import type { BenchSettings } from './settings.js';
import { measureOf, type Measure } from './report.js';
import type { RunningServer } from './servers.js';

/**
 * One kind of request to one server: `body(n)` makes the n-th request's body, so every request
 * differs (ids, conversations), and n keeps counting across runs, so ids stay unique.
 */
export interface LoadTarget {
  server: RunningServer;
  method: 'GET' | 'POST';
  path: string;
  body?: (n: number) => unknown;
  /** The status every request must get; others are counted as failures. Default: any 2xx. */
  status?: number;
  /** Reads the CPU time the server spends in each measured run (see RateMeasure.perCpuSecond). */
  cpu?: CpuMeter;
}

export interface RateMeasure extends Measure {
  /** Requests that failed (connection errors, time-outs, an unexpected status) over all runs. */
  failed: number;
  /** The rate of each round, in order: the same index is the same round for every target (see pairedRatioOf). */
  rounds: number[];
  /**
   * With a CPU meter: the requests answered per second of the server's CPU time, each round, in
   * order; null without a meter, or when a run's CPU time could not be read.
   */
  perCpuSecond: number[] | null;
}

const counters = new WeakMap<LoadTarget, { n: number }>();

/** One load run of `seconds` on a target: its good responses per second (and in all), and its failures. */
export async function loadRun(target: LoadTarget, seconds: number, connections: number): Promise<{ rate: number; good: number; failed: number }> {
  const counter = counters.get(target) ?? { n: 0 };
  counters.set(target, counter);
  let unexpected = 0;
  const body = target.body;
  const result = await autocannon({
    url: target.server.url,
    connections,
    duration: seconds,
    requests: [
      {
        method: target.method,
        path: target.path,
        ...(body && {
          headers: { 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: JSON.stringify(body(counter.n++)) }),
        }),
        ...(target.status && { onResponse: (status) => void (status !== target.status && unexpected++) }),
      },
    ],
  });
  const good = result['2xx'] - unexpected;
  return { rate: good / result.duration, good, failed: result.non2xx + result.errors + result.timeouts + unexpected };
}

/**
 * Loads every target in turn: a warm-up each, then `runs` rounds, the order rotating each
 * round (A B, B A, A B...), so the machine's drift and the neighbours' noise fall on all of
 * them alike. Returns the requests per second of each target: median, spread and failures.
 */
export async function compareRates(targets: LoadTarget[], settings: BenchSettings, log: (line: string) => void): Promise<RateMeasure[]> {
  for (const target of targets) await loadRun(target, settings.warmupSeconds, settings.connections);
  const samples = targets.map(() => [] as number[]);
  const perCpuSecond: (number[] | null)[] = targets.map((target) => (target.cpu ? [] : null));
  const failed = targets.map(() => 0);
  for (let round = 0; round < settings.runs; round++) {
    for (let step = 0; step < targets.length; step++) {
      const index = (round + step) % targets.length;
      const target = targets[index]!;
      await target.cpu?.start();
      const run = await loadRun(target, settings.seconds, settings.connections);
      const cpu = await target.cpu?.stop();
      samples[index]!.push(run.rate);
      failed[index]! += run.failed;
      let cpuNote = '';
      if (cpu && 'seconds' in cpu) {
        perCpuSecond[index]?.push(run.good / cpu.seconds);
        cpuNote = `, ${Math.round(run.good / cpu.seconds)} per CPU second`;
      } else if (cpu) {
        perCpuSecond[index] = null;
        cpuNote = `, CPU time unread: ${cpu.unreadable}`;
      }
      log(`${target.method} ${target.path} ${target.server.label}: ${Math.round(run.rate)} req/s${cpuNote}${run.failed ? `, ${run.failed} failed` : ''}`);
    }
  }
  return samples.map((values, index) => ({ ...measureOf(values), failed: failed[index]!, rounds: values, perCpuSecond: perCpuSecond[index]! }));
}

/** A rate as a figure, its failures noted. */
export function rateFigure(label: string, measure: RateMeasure) {
  return { label, measure, unit: 'req/s', note: measure.failed ? `${measure.failed} failed` : undefined };
}

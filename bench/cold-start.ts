/**
 * Cold start: from spawning the process to its first answered GET /v1/health, for the compiled
 * service (`node dist/bootstrap/main.js`, what `npm start` runs) against the TypeScript sources
 * run through tsx (`npm run dev` without watching), alternating the two, median of RUNS each.
 * Run `npm run build` first. `npx tsx bench/cold-start.ts`
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/support/free-port.js';

const RUNS = Number(process.env.BENCH_COLD_START_RUNS ?? 9);
const VARIANTS = {
  compiled: ['dist/bootstrap/main.js'],
  tsx: ['--import', 'tsx', 'src/bootstrap/main.ts'],
} as const;

async function coldStart(args: readonly string[]): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' }, stdio: 'ignore' });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/v1/health`);
        if (response.ok) return performance.now() - started;
      } catch {
        // not listening yet
      }
      await sleep(5);
    }
  } finally {
    child.kill('SIGKILL');
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function run(): Promise<string[]> {
  if (!existsSync('dist/bootstrap/main.js')) throw new Error('no dist/: run npm run build first');
  const times = { compiled: [] as number[], tsx: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    times.compiled.push(await coldStart(VARIANTS.compiled));
    times.tsx.push(await coldStart(VARIANTS.tsx));
  }
  const [compiled, tsx] = [median(times.compiled), median(times.tsx)];
  return [
    `cold start to first /v1/health (median of ${RUNS}, alternating):`,
    `  tsx src/bootstrap/main.ts   ${tsx.toFixed(0)} ms (baseline)`,
    `  node dist/bootstrap/main.js ${compiled.toFixed(0)} ms, ratio ${(compiled / tsx).toFixed(2)}x`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) console.log((await run()).join('\n'));

/**
 * Cold start: from spawning the process to its first answered GET /v1/health, for the compiled
 * service (`node dist/bootstrap/main.js`, what `npm start` runs) against the TypeScript sources
 * run through tsx (what `npm run dev` runs), alternating the two; in-memory store.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../test/support/free-port.js';
import { measureOf, type Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';

export const heading = 'cold start: process spawned to first answered GET /v1/health, in memory; the compiled service against tsx on the sources';

const VARIANTS = {
  compiled: ['dist/bootstrap/main.js'],
  tsx: ['--import', 'tsx', 'src/bootstrap/main.ts'],
} as const;

async function coldStart(args: readonly string[]): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' }, stdio: 'ignore' });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
      const answered = await fetch(`http://127.0.0.1:${port}/v1/health`).then((r) => r.ok, () => false);
      if (answered) return performance.now() - started;
      await sleep(5);
    }
  } finally {
    child.kill('SIGKILL');
  }
}

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  const runs = Math.max(3, settings.runs * 3);
  const times = { compiled: [] as number[], tsx: [] as number[] };
  for (let i = 0; i < runs; i++) {
    times.compiled.push(await coldStart(VARIANTS.compiled));
    times.tsx.push(await coldStart(VARIANTS.tsx));
  }
  log(`cold starts: ${runs} of each, alternating`);
  return [
    {
      figure: 'cold start to first /v1/health',
      subject: { label: 'node dist/', measure: measureOf(times.compiled), unit: 'ms' },
      baseline: { label: 'tsx src/', measure: measureOf(times.tsx), unit: 'ms' },
    },
  ];
}

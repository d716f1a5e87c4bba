import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where this run's skipped suites note why (required-tool.ts): one file per run of mocha, named
 * after its main process, which is a worker's parent in a parallel run (MOCHA_WORKER_ID is set).
 */
export const skippedFile = () => join(tmpdir(), `mocha-skipped-${process.env.MOCHA_WORKER_ID === undefined ? process.pid : process.ppid}.txt`);

/**
 * Mocha's global teardown (loaded with --require: .mocharc.json and the package's test scripts), in
 * its main process after every file ran: what was skipped for want of a tool, once each, below
 * mocha's own count of pending tests.
 */
export function mochaGlobalTeardown(): void {
  const file = skippedFile();
  let reasons: string[];
  try {
    reasons = [...new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))];
  } catch {
    return; // nothing was skipped
  }
  rmSync(file, { force: true });
  console.warn(`\n  Skipped on this machine (CI runs them all):\n${reasons.map((reason) => `    - ${reason}`).join('\n')}`);
}

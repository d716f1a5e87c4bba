import { appendFileSync } from 'node:fs';
import { skippedFile } from './skip-summary.js';

/**
 * What a suite needs from the machine (PostgreSQL, Chromium, the native speech programs): when it
 * is missing, the suite is skipped with one line saying what is missing and how to get it, except
 * under CI (CI=true), which installs everything (.ci/run) and so fails instead of skipping quietly.
 * The reason is also kept for the run's closing summary (skip-summary.ts), which mocha's main
 * process prints whether the files ran in its workers (npm test) or in itself (test:file).
 */
export function missingTool(context: Mocha.Context, missing: string, remedy: string): never {
  if (process.env.CI) throw new Error(`${missing}, and CI must run this suite (${remedy})`);
  console.warn(`      (skipped: ${missing}; ${remedy})`);
  appendFileSync(skippedFile(), `${missing}: ${remedy}\n`);
  return context.skip();
}

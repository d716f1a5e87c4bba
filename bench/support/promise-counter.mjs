/**
 * Loaded into a server under test with `--import` (NODE_OPTIONS), for the `streams` section's
 * count of promises: counts every promise the process creates (an async_hooks init hook) and, on
 * SIGUSR2, writes the count so far to the file PROMISE_COUNT_FILE names (whole: written aside,
 * then renamed into place). The hook slows the
 * process, so the counted runs are never the timed ones.
 */
import { createHook } from 'node:async_hooks';
import { renameSync, writeFileSync } from 'node:fs';

const file = process.env.PROMISE_COUNT_FILE;
let created = 0;
createHook({
  init(_id, type) {
    if (type === 'PROMISE') created++;
  },
}).enable();
process.on('SIGUSR2', () => {
  if (!file) return;
  writeFileSync(`${file}.part`, String(created));
  renameSync(`${file}.part`, file);
});

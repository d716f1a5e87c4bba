/** What was skipped for want of a tool, said once more at the end of the run. */
const skipped = new Set<string>();

/**
 * What a suite needs from the machine (PostgreSQL, Chromium, the native speech programs): when it
 * is missing, the suite is skipped with one line saying what is missing and how to get it, except
 * under CI (CI=true), which installs everything (.ci/run) and so fails instead of skipping quietly.
 */
export function missingTool(context: Mocha.Context, missing: string, remedy: string): never {
  if (process.env.CI) throw new Error(`${missing}, and CI must run this suite (${remedy})`);
  console.warn(`      (skipped: ${missing}; ${remedy})`);
  skipped.add(`${missing}: ${remedy}`);
  return context.skip();
}

// A root-level hook (this module is first loaded while mocha reads the test files): the reasons,
// once each, just above mocha's count of pending tests.
after(() => {
  if (skipped.size === 0) return;
  console.warn(`\n  Skipped on this machine (CI runs them all):\n${[...skipped].map((reason) => `    - ${reason}`).join('\n')}`);
});

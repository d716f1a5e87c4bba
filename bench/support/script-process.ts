import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * A TypeScript script of bench/support (through tsx) in a process of its own, run from the
 * repository's root, so that its work does not share the bench process's event loop. It is
 * killed if the bench exits first.
 */
export function scriptProcess(script: string, args: string[], stdio: StdioOptions): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(`./${script}`, import.meta.url)), ...args], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    stdio,
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  return child;
}

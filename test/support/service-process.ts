import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { conformanceOf, forgetDocument } from './documented-responses.js';

const MAIN = new URL('../../src/bootstrap/main.ts', import.meta.url).pathname;

/** The real entry point (`src/bootstrap/main.ts` under tsx) in a child process of its own. */
export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
  /** SIGKILL: the process dies at once, with whatever it had in hand. */
  kill(): Promise<void>;
  /** SIGTERM, and its exit code. */
  stop(): Promise<number | null>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => running.forEach((child) => child.kill('SIGKILL')));

/** Kills every process launched here that still runs (for an afterEach/after). */
export function killAllServiceProcesses(): void {
  running.forEach((child) => child.kill('SIGKILL'));
}

/** Starts the service on port 0 and waits until it says where it listens. */
export async function launchService(environment: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', HOST: '127.0.0.1', PORT: '0', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = once(child, 'exit').then(([code]) => {
    running.delete(child);
    return code as number | null;
  });
  const output = () => ({ stdout, stderr });
  const deadline = Date.now() + 30_000;
  let url: string | undefined;
  while (!url) {
    url = /"url":"(http:[^"]+)"/.exec(stdout)?.[1];
    if (url) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not start: ${JSON.stringify(output())}`);
    }
    await sleep(50);
  }
  // Its /openapi.json now, while it serves: answers are checked against it even after it died.
  forgetDocument(url);
  await conformanceOf(url);
  return {
    child,
    url,
    exited,
    output,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

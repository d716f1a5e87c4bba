import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { conformanceOf, forgetDocument } from './documented-responses.js';

const MAIN = new URL('../../src/bootstrap/main.ts', import.meta.url).pathname;

/** The real entry point (`src/bootstrap/main.ts` under tsx) in a child process of its own. */
export interface SpawnedService {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
  /** SIGKILL: the process dies at once, with whatever it had in hand. */
  kill(): Promise<void>;
  /** SIGTERM, and its exit code. */
  stop(): Promise<number | null>;
}

/** A spawned service that said where it listens. */
export interface ServiceProcess extends SpawnedService {
  url: string;
}

const running = new Set<ChildProcess>();
process.once('exit', () => running.forEach((child) => child.kill('SIGKILL')));

/** Kills every process launched here that still runs (for an afterEach/after). */
export function killAllServiceProcesses(): void {
  running.forEach((child) => child.kill('SIGKILL'));
}

/** Starts the service (on port 0 unless told) and returns at once: it may be meant to fail. */
export function spawnService(environment: Record<string, string>): SpawnedService {
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
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
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

/** The first match of `pattern` in the service's log, waiting for it up to `withinMs`. */
export async function waitForLog(run: SpawnedService, pattern: RegExp, withinMs = 30_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const match = pattern.exec(run.output().stdout);
    if (match) return match;
    if (run.child.exitCode !== null || Date.now() > deadline) throw new Error(`no log line matching ${pattern}: ${JSON.stringify(run.output())}`);
    await sleep(50);
  }
}

/**
 * Where a spawned service listens, once it says so; its /openapi.json is read then, while it
 * serves, so that answers are checked against it even after it stopped.
 */
export async function listeningUrl(run: SpawnedService, withinMs = 30_000): Promise<string> {
  const url = (await waitForLog(run, /"url":"(http:[^"]+)"/, withinMs))[1]!;
  forgetDocument(url);
  await conformanceOf(url);
  return url;
}

/** Starts the service on port 0 and waits until it says where it listens. */
export async function launchService(environment: Record<string, string>): Promise<ServiceProcess> {
  const run = spawnService(environment);
  try {
    return { ...run, url: await listeningUrl(run) };
  } catch (error) {
    run.child.kill('SIGKILL');
    throw new Error(`the service did not start: ${(error as Error).message}`);
  }
}

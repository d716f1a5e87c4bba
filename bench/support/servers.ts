import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../test/support/free-port.js';

/** Servers under test, each a child process of its own on a free port. */
export interface RunningServer {
  label: string;
  url: string;
  /** The server's process (for reading its memory). */
  pid: number;
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) kill(child, 'SIGKILL');
});

/** Only what a Node process needs, so a DATABASE_URL or LLM_* of the caller's shell cannot leak in. */
function baseEnvironment(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];
  return Object.fromEntries(keep.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]!]])));
}

/**
 * How `npm start` runs the service, read from package.json now, so the bench follows the
 * project (a compiled build, say). `tsx x.ts` and `node x.js` run directly under this Node;
 * anything else through a shell, in a process group of its own.
 */
function startCommand(): { command: string; args: string[]; group: boolean } {
  const script: string = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')).scripts.start;
  const [program, ...args] = script.trim().replace(/^exec\s+/, '').split(/\s+/);
  if (program === 'tsx') return { command: process.execPath, args: ['--import', 'tsx', ...args], group: false };
  if (program === 'node') return { command: process.execPath, args, group: false };
  return { command: 'sh', args: ['-c', script], group: true };
}

function kill(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (child.spawnargs[0] === 'sh' && child.pid) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // already gone
  }
}

async function launch(label: string, command: string, args: string[], env: Record<string, string>, group = false): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...baseEnvironment(), HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: group,
  });
  children.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;

  const stop = async () => {
    kill(child, 'SIGTERM');
    const forced = setTimeout(() => kill(child, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(forced);
    children.delete(child);
  };

  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    const healthy = await fetch(`${url}/v1/health`).then((response) => response.ok, () => false);
    if (healthy) return { label, url, pid: child.pid!, stop };
    await sleep(100);
  }
  await stop();
  throw new Error(`${label} did not start: ${stderr.trim() || 'no output'}`);
}

/**
 * For a server whose PostgreSQL traffic a proxy counts (wire-counter.ts): it does not analyze
 * the tables itself (table-statistics.ts), so no look at their changes falls among the counted
 * requests. Where a second server shares its database, that one keeps the statistics.
 */
export const COUNTED_ENV: Record<string, string> = { DATABASE_ANALYZE: 'off' };

/**
 * The service as `npm start` runs it: in memory, or on PostgreSQL when `databaseUrl` is given;
 * `env` adds or replaces settings (another language model, say).
 */
export function startService(label: string, options: { databaseUrl?: string; env?: Record<string, string> } = {}): Promise<RunningServer> {
  const { command, args, group } = startCommand();
  const env: Record<string, string> = { LOG_LEVEL: 'silent', OFFLINE_STREAM_DELAY_MS: '0', LLM_PROVIDER: 'offline', ...options.env };
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  return launch(label, command, args, env, group);
}

/** One of the baselines in bench/baselines/, e.g. `pg-server`. */
export function startBaseline(label: string, name: string, env: Record<string, string> = {}): Promise<RunningServer> {
  return launch(label, process.execPath, ['--import', 'tsx', `bench/baselines/${name}.ts`], env);
}

/**
 * Gives a fresh database the service's schema by running the service against it once (it
 * migrates at start), so the hand-written server uses exactly the tables the service made,
 * whatever its migrations become.
 */
export async function migrateWithService(databaseUrl: string): Promise<void> {
  const service = await startService('migration', { databaseUrl });
  await service.stop();
}

/** Undo steps run in reverse order, all of them, even when one fails. */
export class Cleanup {
  private readonly steps: (() => Promise<unknown>)[] = [];

  add<T>(value: T, undo: (value: T) => Promise<unknown>): T {
    this.steps.push(() => undo(value));
    return value;
  }

  async run(): Promise<void> {
    for (const step of this.steps.reverse()) await step().catch((error) => console.error(`cleanup: ${String(error)}`));
    this.steps.length = 0;
  }
}

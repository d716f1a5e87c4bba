import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';
import { missingTool } from './required-tool.js';

const run = promisify(execFile);

/** The PostgreSQL server binaries of the newest installed major version, if any. */
function binaries(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  const bin = versions.map((v) => join(root, v, 'bin')).find((dir) => existsSync(join(dir, 'initdb')));
  return bin ?? null;
}

export interface ThrowawayPostgres {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export function canRunThrowawayPostgres(): boolean {
  return binaries() !== null && process.getuid?.() === 0;
}

/**
 * A second PostgreSQL cluster of our own, on a free port, in a temporary directory, that a
 * test may stop and start at will. Runs the server as the `postgres` system user (root may
 * not run it). destroy() stops it and removes its directory.
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const bin = binaries();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const dir = mkdtempSync(join(tmpdir(), 'pg-throwaway-'));
  chownSync(dir, Number((await run('id', ['-u', 'postgres'])).stdout), Number((await run('id', ['-g', 'postgres'])).stdout));
  const asPostgres = (command: string, args: string[]) => run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]);
  await asPostgres('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = async () => {
    await asPostgres('pg_ctl', ['-D', join(dir, 'data'), '-o', options, '-l', join(dir, 'log'), '-w', '-t', '30', 'start']);
  };
  const stop = async () => {
    await asPostgres('pg_ctl', ['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    destroy: async () => {
      await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * For a describe() that needs a cluster of its own: skips with a message when one cannot be
 * run here (root and the server binaries are needed), but fails under CI, where it must run.
 */
export function requireThrowawayPostgres(context: Mocha.Context): void {
  if (!canRunThrowawayPostgres()) missingTool(context, 'no throwaway PostgreSQL cluster can be run here', 'it needs root and the server binaries in /usr/lib/postgresql/*/bin');
}

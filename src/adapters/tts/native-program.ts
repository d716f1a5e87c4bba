import { spawn, spawnSync } from 'node:child_process';
import { SpeechEngineFailedError } from '../../domain/errors.js';

/** A program installed on the machine (Debian's espeak-ng, lame), found by running it once. */
export interface NativeProgram {
  command: string;
  /** The first line of its version output. */
  version: string;
}

/** Programs looked for in this process, by PATH and command: a look runs the program, blocking. */
const found = new Map<string, NativeProgram | null>();

/** The program's `--version` line, or null when it is not installed (or does not run); looked for once per process (and PATH). */
export function findProgram(command: string, versionPattern: RegExp): NativeProgram | null {
  const key = `${process.env.PATH ?? ''}\0${command}\0${versionPattern.source}`;
  if (!found.has(key)) found.set(key, lookFor(command, versionPattern));
  return found.get(key)!;
}

function lookFor(command: string, versionPattern: RegExp): NativeProgram | null {
  const run = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] });
  if (run.error || run.status !== 0) return null;
  const version = versionPattern.exec(run.stdout)?.[1];
  return version ? { command, version } : null;
}

/**
 * Runs a program with `input` on its standard input and returns what it wrote to standard
 * output. When `signal` aborts, the program is killed and the promise rejects with the reason.
 */
export function runProgram(program: NativeProgram, args: string[], input: Uint8Array | string, signal?: AbortSignal): Promise<Uint8Array> {
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const child = spawn(program.command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    let complaint = '';
    const onAbort = () => {
      child.kill('SIGKILL');
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (part: Buffer) => output.push(part));
    child.stderr.on('data', (part: Buffer) => {
      if (complaint.length < 300) complaint += part.toString('utf8');
    });
    // A program that exits early closes its input: the write error is the exit's to report.
    child.stdin.on('error', () => {});
    child.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(new SpeechEngineFailedError(`${program.command} could not be run: ${error.message}`));
    });
    child.on('close', (code, killedBy) => {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) return;
      if (code === 0) return resolve(new Uint8Array(Buffer.concat(output)));
      const why = complaint.trim().split('\n')[0]?.slice(0, 200) || (killedBy ? `killed by ${killedBy}` : `exit status ${code}`);
      reject(new SpeechEngineFailedError(`${program.command} failed: ${why}`));
    });
    child.stdin.end(input);
  });
}

import { expect } from 'chai';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../support/free-port.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const BUILT_MAIN = join(ROOT, 'dist/bootstrap/main.js');

/** The newest modification time of any file under `dir`. */
function newestChange(dir: string): number {
  return Math.max(
    ...readdirSync(dir, { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? newestChange(join(dir, entry.name)) : statSync(join(dir, entry.name)).mtimeMs,
    ),
  );
}

/** The parent of a process, from /proc (these tests are about POSIX process trees). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function portIsFree(port: number): Promise<boolean> {
  const probe = createServer();
  probe.listen(port, '127.0.0.1');
  try {
    await once(probe, 'listening');
    return true;
  } catch {
    return false;
  } finally {
    probe.close();
  }
}

/** The README's serve command, `npm start`, in a session of its own (as `setsid npm start &`). */
async function npmStart(port: number) {
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_FORMAT: 'json', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  npm.stdout.on('data', (chunk) => (stdout += chunk));
  npm.stderr.resume();
  const exited = once(npm, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as string | null }));
  for (let i = 0; i < 300 && !stdout.includes('"msg":"listening'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  const listening = /\{"level":30,"time":\d+,"pid":(\d+)[^\n]*"msg":"listening/.exec(stdout);
  if (!listening) {
    npm.kill('SIGKILL');
    throw new Error(`npm start did not come up: ${stdout}`);
  }
  return { npm, servicePid: Number(listening[1]), exited, stdout: () => stdout };
}

describe('npm start, signalled as an operator would', function () {
  this.timeout(60_000);
  const started: number[] = [];

  before(function () {
    // `npm start` runs the compiled service: build it when it is missing or older than the source.
    if (!existsSync(BUILT_MAIN) || statSync(BUILT_MAIN).mtimeMs < newestChange(join(ROOT, 'src'))) {
      execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
    }
  });
  // A failed test must not leave a service holding a port.
  afterEach(() => started.splice(0).forEach((pid) => isAlive(pid) && process.kill(pid, 'SIGKILL')));

  it('runs the service as npm’s own child: no shell in between to swallow a signal', async () => {
    const run = await npmStart(await freePort());
    started.push(run.servicePid, run.npm.pid!);
    expect(parentOf(run.servicePid)).to.equal(run.npm.pid);
    process.kill(run.servicePid, 'SIGTERM');
    expect(await run.exited).to.deep.equal({ code: 0, signal: null });
  });

  it('SIGTERM to npm stops the service gracefully: npm exits 0, the service is gone, the port is free', async () => {
    const port = await freePort();
    const run = await npmStart(port);
    started.push(run.servicePid, run.npm.pid!);
    process.kill(run.npm.pid!, 'SIGTERM');
    // npm exits with the service's own exit code, so 0 means the service shut down cleanly.
    expect(await run.exited).to.deep.equal({ code: 0, signal: null });
    expect(run.stdout()).to.include('"msg":"stopped"');
    expect(isAlive(run.servicePid), 'the service process is gone').to.equal(false);
    expect(await portIsFree(port), 'the port is free').to.equal(true);
  });

  it('SIGINT to the whole process group (Ctrl-C) reaches the service twice and still drains gracefully', async () => {
    const port = await freePort();
    const run = await npmStart(port);
    started.push(run.servicePid, run.npm.pid!);
    process.kill(-run.npm.pid!, 'SIGINT');
    expect(await run.exited).to.deep.equal({ code: 0, signal: null });
    expect(run.stdout()).to.include('"msg":"stopped"');
    expect(await portIsFree(port)).to.equal(true);
  });
});

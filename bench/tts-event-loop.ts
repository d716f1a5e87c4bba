/**
 * How fast GET /v1/health answers while long texts are being synthesized. Run by hand (not
 * a test: timings on a shared machine are noisy):
 *
 *   npx tsx bench/tts-event-loop.ts                         # starts the service as a child process
 *   npx tsx bench/tts-event-loop.ts http://localhost:8095   # or measures a running one
 *
 * For each scenario it polls /v1/health every 10 ms (one request at a time, over keep-alive)
 * while POST /api/tts requests of 4,000 characters run (each from a child process, so that
 * downloading the audio does not delay the polling), and prints the latencies seen. The idle
 * baseline shows how noisy the machine itself is.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/support/free-port.js';

const SENTENCE = 'The quick brown fox jumps over the lazy dog, then it runs far away into the quiet forest. ';
const longText = (nonce: string) => `${nonce}. ${SENTENCE.repeat(50)}`.slice(0, 4000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));


async function startChild() {
  const port = await freePort();
  const root = fileURLToPath(new URL('..', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bootstrap/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (await fetch(`${url}/v1/health`).then((r) => r.ok, () => false)) return { url, child };
    await sleep(100);
  }
  child.kill('SIGTERM');
  throw new Error('the service did not start');
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(1);
  const over = values.filter((v) => v > 50).length;
  return `n=${sorted.length} median=${f(percentile(sorted, 50))} p95=${f(percentile(sorted, 95))} p99=${f(percentile(sorted, 99))} max=${f(sorted.at(-1)!)} ms; over 50 ms: ${over} (${((100 * over) / sorted.length).toFixed(1)}%)`;
}

async function healthWhile(base: string, label: string, work: () => Promise<string>): Promise<void> {
  const latencies: number[] = [];
  let done = false;
  const poller = (async () => {
    while (!done) {
      const started = performance.now();
      await (await fetch(`${base}/v1/health`)).arrayBuffer();
      latencies.push(performance.now() - started);
      await sleep(10);
    }
  })();
  const started = performance.now();
  const outcome = await work();
  const elapsed = performance.now() - started;
  done = true;
  await poller;
  console.log(`${label}: ${outcome} in ${(elapsed / 1000).toFixed(2)} s`);
  console.log(`  GET /v1/health: ${summary(latencies)}`);
}

/** The client that downloads the audio runs in a process of its own, so its work never delays the polling. */
const SPEAK = `
const [url, body] = process.argv.slice(1);
fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  .then(async (r) => console.log(r.status, (await r.arrayBuffer()).byteLength));
`;

async function speak(base: string, format: 'wav' | 'mp3', nonce: string): Promise<string> {
  const body = JSON.stringify({ text: longText(nonce), format });
  const child = spawn(process.execPath, ['-e', SPEAK, `${base}/api/tts`, body], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise((resolve) => child.once('close', resolve));
  const [status, bytes] = output.trim().split(' ');
  return `${status} ${format} ${(Number(bytes) / 1e6).toFixed(2)} MB`;
}

const started = process.argv[2] ? undefined : await startChild();
const base = process.argv[2] ?? started!.url;
const run = `${Date.now()}`;
try {
  await healthWhile(base, 'idle baseline', async () => {
    await sleep(3000);
    return 'nothing';
  });
  await healthWhile(base, 'first request (engine loads, voices listed): 4,000 chars to WAV', () => speak(base, 'wav', `cold ${run}`));
  await healthWhile(base, '4,000 chars to WAV', () => speak(base, 'wav', `warm ${run}`));
  await healthWhile(base, '4,000 chars to MP3', () => speak(base, 'mp3', `mp3 ${run}`));
  await healthWhile(base, 'two at once, 4,000 chars each (WAV and MP3)', async () =>
    (await Promise.all([speak(base, 'wav', `a ${run}`), speak(base, 'mp3', `b ${run}`)])).join(', '),
  );
} finally {
  started?.child.kill('SIGTERM');
}

/**
 * Speech speed: time to the first audio byte and total time of POST /api/tts, for 200 and
 * 4,000 characters, as WAV and MP3, against Debian's native pipeline on the same text in the
 * same run (`espeak-ng --stdout`, and `espeak-ng --stdout | lame` for MP3). Run by hand (not
 * a test: timings on a shared machine are noisy):
 *
 *   npx tsx bench/speech.ts                 # the service with TTS_ENGINE=auto, then =wasm
 *   BENCH_RUNS=9 BENCH_ENGINES=auto npx tsx bench/speech.ts
 *
 * The service runs as a child process with its audio cache off, and every run speaks a text
 * of its own, so nothing is served from a cache. Figures are medians of BENCH_RUNS runs
 * (5 unless told); ratios are service / native. Targets (issue 14): first byte of 4,000
 * characters under 300 ms, total within 2x of the native pipeline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/support/free-port.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const ENGINES = (process.env.BENCH_ENGINES ?? 'auto,wasm').split(',').map((e) => e.trim()).filter(Boolean);
const SIZES = [200, 4000];
const FORMATS = ['wav', 'mp3'] as const;
/** The service's MP3 settings, so the native pipeline does the same work. */
const LAME_ARGS = ['--quiet', '-b', '64', '-m', 'm', '-', '-'];

const SENTENCES = [
  'The quick brown fox jumps over the lazy dog, then it runs far away into the quiet forest.',
  'Dr. Smith measured 3.14 litres of water before noon!',
  'Would you like to hear the weather for tomorrow?',
  'Rain is expected in the north, with sunny spells further south.',
  '"Remember your umbrella," she said, smiling at the window.',
];
/** A text of exactly `length` characters, different for each run (its first words name the run). */
function textOf(length: number, run: string): string {
  let text = `Run ${run}. `;
  for (let i = 0; text.length < length; i++) text += `${SENTENCES[i % SENTENCES.length]} `;
  return text.slice(0, length).replace(/\s+$/, '.');
}

interface Timing {
  firstMs: number;
  totalMs: number;
  bytes: number;
}

async function throughService(url: string, text: string, format: string): Promise<Timing> {
  const started = performance.now();
  const response = await fetch(`${url}/api/tts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text, format }) });
  if (!response.ok) throw new Error(`POST /api/tts answered ${response.status}: ${await response.text()}`);
  let firstMs = 0;
  let bytes = 0;
  for await (const part of response.body!) {
    firstMs ||= performance.now() - started;
    bytes += (part as Uint8Array).length;
  }
  return { firstMs, totalMs: performance.now() - started, bytes };
}

/** `espeak-ng --stdout` (| `lame`) on the same text: time to its first output byte and to its end. */
function throughNative(text: string, format: string): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const espeak = spawn('espeak-ng', ['-v', 'en-us', '--stdout', '--stdin'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let last: ChildProcess = espeak;
    if (format === 'mp3') {
      last = spawn('lame', LAME_ARGS, { stdio: ['pipe', 'pipe', 'ignore'] });
      espeak.stdout.pipe(last.stdin!);
    }
    let firstMs = 0;
    let bytes = 0;
    last.stdout!.on('data', (part: Buffer) => {
      firstMs ||= performance.now() - started;
      bytes += part.length;
    });
    last.on('error', reject);
    espeak.on('error', reject);
    last.on('close', (code) => (code === 0 ? resolve({ firstMs, totalMs: performance.now() - started, bytes }) : reject(new Error(`native pipeline exited ${code}`))));
    espeak.stdin.end(text);
  });
}

async function startService(engine: string): Promise<{ url: string; child: ChildProcess; engineName: string }> {
  const port = await freePort();
  const root = fileURLToPath(new URL('..', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bootstrap/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', TTS_ENGINE: engine, TTS_CACHE_BYTES: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let engineName = '?';
  let output = '';
  child.stdout!.on('data', (part: Buffer) => {
    output += part.toString('utf8');
    const line = output.split('\n').find((l) => l.includes('"speech engine"'));
    if (line) engineName = (JSON.parse(line) as { engine: string }).engine;
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (await fetch(`${url}/v1/health`).then((r) => r.ok, () => false)) return { url, child, engineName };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGTERM');
  throw new Error('the service did not start');
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const ms = (value: number) => `${value.toFixed(0)} ms`.padStart(8);
const ratio = (value: number) => `${value.toFixed(2)}x`.padStart(7);

async function benchEngine(engine: string): Promise<string[]> {
  const { url, child, engineName } = await startService(engine);
  const verdicts: string[] = [];
  try {
    await throughService(url, textOf(400, 'warm-up'), 'mp3'); // voices listed, engines loaded
    console.log(`\nTTS_ENGINE=${engine}: ${engineName}`);
    console.log('chars  format | service: first byte    total | native: first byte    total | ratio: first byte  total');
    for (const size of SIZES) {
      for (const format of FORMATS) {
        const service: Timing[] = [];
        const native: Timing[] = [];
        for (let run = 0; run < RUNS; run++) {
          const text = textOf(size, `${engine} ${format} ${run}`);
          // Alternate which goes first, so neither always meets a warmer machine.
          if (run % 2 === 0) {
            service.push(await throughService(url, text, format));
            native.push(await throughNative(text, format));
          } else {
            native.push(await throughNative(text, format));
            service.push(await throughService(url, text, format));
          }
        }
        const s = { first: median(service.map((t) => t.firstMs)), total: median(service.map((t) => t.totalMs)) };
        const n = { first: median(native.map((t) => t.firstMs)), total: median(native.map((t) => t.totalMs)) };
        console.log(
          `${String(size).padStart(5)}  ${format.padEnd(6)} |           ${ms(s.first)} ${ms(s.total)} |          ${ms(n.first)} ${ms(n.total)} |          ${ratio(s.first / n.first)} ${ratio(s.total / n.total)}`,
        );
        if (size === 4000) {
          verdicts.push(
            `TTS_ENGINE=${engine} ${format}, 4,000 characters: first byte ${s.first.toFixed(0)} ms (target < 300 ms: ${s.first < 300 ? 'met' : 'NOT met'}), ` +
              `total ${(s.total / n.total).toFixed(2)}x the native pipeline (target <= 2x: ${s.total <= 2 * n.total ? 'met' : 'NOT met'})`,
          );
        }
      }
    }
  } finally {
    child.kill('SIGTERM');
  }
  return verdicts;
}

console.log(`speech bench: ${RUNS} runs each, medians; POST /api/tts (audio cache off) against espeak-ng --stdout [| lame ${LAME_ARGS.slice(1, -2).join(' ')}]`);
const verdicts: string[] = [];
for (const engine of ENGINES) verdicts.push(...(await benchEngine(engine)));
console.log('');
for (const verdict of verdicts) console.log(verdict);

/**
 * Speech: time to the first audio byte and total time of POST /api/tts, for 200 and 4,000
 * characters, as WAV and MP3, against Debian's native pipeline on the same text in the same run
 * (`espeak-ng --stdout`, and `espeak-ng --stdout | lame` for MP3), with the engine TTS_ENGINE=auto
 * picks (native when installed) and with the WebAssembly one. The service runs compiled, with its
 * audio cache off, and every request speaks a text of its own, so nothing comes from a cache.
 * Targets (for 4,000 characters): first byte under 300 ms with either engine; total within 2x of
 * the native pipeline with the engine `auto` picks when the native programs are installed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../test/support/free-port.js';
import { measureOf, type Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';

export const heading = 'POST /api/tts, first audio byte and total time, against espeak-ng --stdout [| lame] on the same text; audio cache off';

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
}

async function throughService(url: string, text: string, format: string): Promise<Timing> {
  const started = performance.now();
  const response = await fetch(`${url}/api/tts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text, format }) });
  if (!response.ok) throw new Error(`POST /api/tts answered ${response.status}: ${await response.text()}`);
  let firstMs = 0;
  for await (const _ of response.body!) firstMs ||= performance.now() - started;
  return { firstMs, totalMs: performance.now() - started };
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
    last.stdout!.on('data', () => (firstMs ||= performance.now() - started));
    last.on('error', reject);
    espeak.on('error', reject);
    last.on('close', (code) => (code === 0 ? resolve({ firstMs, totalMs: performance.now() - started }) : reject(new Error(`native pipeline exited ${code}`))));
    espeak.stdin.end(text);
  });
}

async function startService(engine: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/bootstrap/main.js'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', TTS_ENGINE: engine, TTS_CACHE_BYTES: '0' },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the service (TTS_ENGINE=${engine}) exited with ${child.exitCode}`);
    if (await fetch(`${url}/v1/health`).then((r) => r.ok, () => false)) return { url, child };
    await sleep(100);
  }
  child.kill('SIGTERM');
  throw new Error(`the service (TTS_ENGINE=${engine}) did not start`);
}

const installed = (program: string) => spawnSync(program, ['--version'], { stdio: 'ignore' }).status === 0;

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  if (!installed('espeak-ng') || !installed('lame')) throw new Error('the native pipeline is the baseline: apt-get install espeak-ng lame');
  const runs = Math.max(3, settings.runs);
  const rows: Row[] = [];
  for (const engine of ['auto', 'wasm']) {
    const { url, child } = await startService(engine);
    try {
      await throughService(url, textOf(400, 'warm-up'), 'mp3'); // voices listed, engines loaded
      for (const size of SIZES) {
        for (const format of FORMATS) {
          const service: Timing[] = [];
          const native: Timing[] = [];
          for (let i = 0; i < runs; i++) {
            const text = textOf(size, `${engine} ${format} ${i}`);
            // Alternate which goes first, so neither always meets a warmer machine.
            const pair = i % 2 === 0 ? [() => throughService(url, text, format), () => throughNative(text, format)] : [() => throughNative(text, format), () => throughService(url, text, format)];
            const [a, b] = [await pair[0]!(), await pair[1]!()];
            (i % 2 === 0 ? service : native).push(a);
            (i % 2 === 0 ? native : service).push(b);
          }
          const what = `${size.toLocaleString('en')} chars ${format.toUpperCase()}, TTS_ENGINE=${engine}`;
          const native4000 = size === 4000;
          rows.push({
            figure: `${what}: first byte`,
            subject: { label: 'service', measure: measureOf(service.map((t) => t.firstMs)), unit: 'ms' },
            baseline: { label: 'native', measure: measureOf(native.map((t) => t.firstMs)), unit: 'ms' },
            ...(native4000 && { target: { text: `first audio byte of 4,000 characters as ${format.toUpperCase()}, TTS_ENGINE=${engine}`, valueBelow: 300 } }),
          });
          rows.push({
            figure: `${what}: total`,
            subject: { label: 'service', measure: measureOf(service.map((t) => t.totalMs)), unit: 'ms' },
            baseline: { label: 'native', measure: measureOf(native.map((t) => t.totalMs)), unit: 'ms' },
            // The 2x bound is for the engine a machine with the native programs runs (auto); the WebAssembly one is shown for comparison.
            ...(native4000 && engine === 'auto' && { target: { text: `total time of 4,000 characters as ${format.toUpperCase()}, TTS_ENGINE=auto, against the native pipeline`, atMost: 2 } }),
          });
        }
      }
      log(`speech: TTS_ENGINE=${engine}, ${runs} runs of each`);
    } finally {
      child.kill('SIGTERM');
    }
  }
  return rows;
}

/**
 * Speech: time to the first audio byte and total time of POST /api/tts, for 200 and 4,000
 * characters, as WAV and MP3, against Debian's native pipeline on the same text in the same run
 * (`espeak-ng --stdout`, and `espeak-ng --stdout | lame` for MP3), with the engine TTS_ENGINE=auto
 * picks (native when installed) and with the WebAssembly one. The service runs compiled, with its
 * audio cache off, and every request speaks a text of its own, so nothing comes from a cache.
 * Then cold starts: a fresh process per run, its first request (4,000 characters of MP3) sent as
 * soon as it logs "listening on", against its second request, warm.
 * Targets: the first byte of 4,000 characters under 300 ms with either engine, warm, and with
 * the WebAssembly one for a fresh process's first request; the first byte of 200 characters of
 * WAV with the WebAssembly engine within 3x the native engine's; the total of 4,000 characters
 * within 2x the native pipeline with the engine `auto` picks when the native programs are installed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { measureOf, type Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';
import { startSpeechService, textOf, throughService, type Timing } from '../support/speech-service.js';

export const heading = 'POST /api/tts, first audio byte and total time, against espeak-ng --stdout [| lame] on the same text; audio cache off';

const SIZES = [200, 4000];
const FORMATS = ['wav', 'mp3'] as const;
/** The service's MP3 settings, so the native pipeline does the same work. */
const LAME_ARGS = ['--quiet', '-b', '64', '-m', 'm', '-', '-'];

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

const installed = (program: string) => spawnSync(program, ['--version'], { stdio: 'ignore' }).status === 0;

/** Figure rows of a subject against its baseline, from the timings of each. */
const timingRow = (figure: string, subject: [string, number[]], baseline: [string, number[]], target?: Row['target']): Row => ({
  figure,
  subject: { label: subject[0], measure: measureOf(subject[1]), unit: 'ms' },
  baseline: { label: baseline[0], measure: measureOf(baseline[1]), unit: 'ms' },
  ...(target && { target }),
});

/**
 * Warm requests: each size and format through a service that has already spoken, alternating
 * with the native pipeline on the same text.
 */
async function warmRows(engine: string, runs: number): Promise<Row[]> {
  const rows: Row[] = [];
  const { url, child } = await startSpeechService(engine);
  try {
    await throughService(url, textOf(400, 'warm-up'), 'mp3');
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
        const long = size === 4000;
        const firstTarget = long
          ? { text: `first audio byte of 4,000 characters as ${format.toUpperCase()}, TTS_ENGINE=${engine}`, valueBelow: 300 }
          : engine === 'wasm' && format === 'wav'
            ? { text: 'first audio byte of 200 characters as WAV, TTS_ENGINE=wasm, against the native engine', atMost: 3 }
            : undefined;
        rows.push(timingRow(`${what}: first byte`, ['service', service.map((t) => t.firstMs)], ['native', native.map((t) => t.firstMs)], firstTarget));
        // The 2x bound is for the engine a machine with the native programs runs (auto); the WebAssembly one is shown for comparison.
        const totalTarget = long && engine === 'auto' ? { text: `total time of 4,000 characters as ${format.toUpperCase()}, TTS_ENGINE=auto, against the native pipeline`, atMost: 2 } : undefined;
        rows.push(timingRow(`${what}: total`, ['service', service.map((t) => t.totalMs)], ['native', native.map((t) => t.totalMs)], totalTarget));
      }
    }
  } finally {
    child.kill('SIGTERM');
  }
  return rows;
}

/**
 * Cold starts: a fresh process per run, TTS_ENGINE=`engine`, one request of 4,000 characters of
 * MP3 as soon as it logs "listening on", then a second (another text) once the first is done: the
 * warm figure of the same run. Also the time from spawning to that log line.
 */
async function coldStarts(engine: string, runs: number): Promise<{ listening: number[]; cold: number[]; warm: number[] }> {
  const times = { listening: [] as number[], cold: [] as number[], warm: [] as number[] };
  for (let i = 0; i < runs; i++) {
    const { url, child, listeningMs } = await startSpeechService(engine);
    try {
      times.listening.push(listeningMs);
      times.cold.push((await throughService(url, textOf(4000, `cold ${engine} ${i}`), 'mp3')).firstMs);
      times.warm.push((await throughService(url, textOf(4000, `warm ${engine} ${i}`), 'mp3')).firstMs);
    } finally {
      child.kill('SIGTERM');
    }
  }
  return times;
}

/** GET /v1/health as a fresh process's first request, then its second: what any first request pays. */
async function firstHealthChecks(runs: number): Promise<{ cold: number[]; warm: number[] }> {
  const times = { cold: [] as number[], warm: [] as number[] };
  const timed = async (url: string) => {
    const started = performance.now();
    await (await fetch(`${url}/v1/health`)).arrayBuffer();
    return performance.now() - started;
  };
  for (let i = 0; i < runs; i++) {
    const { url, child } = await startSpeechService('auto');
    try {
      times.cold.push(await timed(url));
      times.warm.push(await timed(url));
    } finally {
      child.kill('SIGTERM');
    }
  }
  return times;
}

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  if (!installed('espeak-ng') || !installed('lame')) throw new Error('the native pipeline is the baseline: apt-get install espeak-ng lame');
  const runs = Math.max(3, settings.runs);
  const rows: Row[] = [];
  for (const engine of ['auto', 'wasm']) {
    rows.push(...(await warmRows(engine, runs)));
    log(`speech: TTS_ENGINE=${engine}, ${runs} runs of each`);
  }
  const wasm = await coldStarts('wasm', runs);
  const auto = await coldStarts('auto', runs);
  const health = await firstHealthChecks(runs);
  log(`speech: ${runs} cold starts of each engine, and ${runs} for GET /v1/health`);
  rows.push(
    timingRow('4,000 chars MP3, TTS_ENGINE=wasm: first byte, first request after start', ['cold', wasm.cold], ['warm', wasm.warm], {
      text: 'first audio byte of 4,000 characters as MP3, TTS_ENGINE=wasm, first request of a process once it listens',
      valueBelow: 300,
    }),
    timingRow('4,000 chars MP3, TTS_ENGINE=auto: first byte, first request after start', ['cold', auto.cold], ['warm', auto.warm]),
    // Any endpoint's first request pays for the HTTP stack's first use: the part of the cold figures above that is not speech.
    timingRow('GET /v1/health, first request after start', ['cold', health.cold], ['warm', health.warm]),
    // The price of warming the WebAssembly engine at start-up (bounded by TTS_WARMUP_MS), against the native one's.
    timingRow('spawn to "listening on" log line', ['TTS_ENGINE=wasm', wasm.listening], ['TTS_ENGINE=auto', auto.listening]),
  );
  return rows;
}

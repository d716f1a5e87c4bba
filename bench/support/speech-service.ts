/**
 * The speech section's tools: texts that no cache has seen, the compiled service started as a
 * child process (with its audio cache off) until it logs where it listens, and POST /api/tts
 * timed to its first audio byte and to its end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const SENTENCES = [
  'The quick brown fox jumps over the lazy dog, then it runs far away into the quiet forest.',
  'Dr. Smith measured 3.14 litres of water before noon!',
  'Would you like to hear the weather for tomorrow?',
  'Rain is expected in the north, with sunny spells further south.',
  '"Remember your umbrella," she said, smiling at the window.',
];

/** A text of exactly `length` characters, different for each run (its first words name the run). */
export function textOf(length: number, run: string): string {
  let text = `Run ${run}. `;
  for (let i = 0; text.length < length; i++) text += `${SENTENCES[i % SENTENCES.length]} `;
  return text.slice(0, length).replace(/\s+$/, '.');
}

export interface Timing {
  firstMs: number;
  totalMs: number;
}

export async function throughService(url: string, text: string, format: string): Promise<Timing> {
  const started = performance.now();
  const response = await fetch(`${url}/api/tts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text, format }) });
  if (!response.ok) throw new Error(`POST /api/tts answered ${response.status}: ${await response.text()}`);
  let firstMs = 0;
  for await (const _ of response.body!) firstMs ||= performance.now() - started;
  return { firstMs, totalMs: performance.now() - started };
}

export interface SpeechService {
  url: string;
  child: ChildProcess;
  /** From spawning the process to its "listening on" log line. */
  listeningMs: number;
}

/**
 * `node dist/bootstrap/main.js` with TTS_ENGINE=`engine`, on a free port, resolved once it logs
 * its "listening on" line (the moment a client may first call it).
 */
export function startSpeechService(engine: string, withinMs = 60_000): Promise<SpeechService> {
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/bootstrap/main.js'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', LOG_FORMAT: 'json', TTS_ENGINE: engine, TTS_CACHE_BYTES: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    let stderr = '';
    const timer = setTimeout(() => fail(`did not log "listening on" within ${withinMs} ms`), withinMs);
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`the service (TTS_ENGINE=${engine}) ${why}: ${stderr.slice(0, 500)}`));
    };
    child.stderr!.on('data', (part: Buffer) => (stderr += part.toString('utf8')));
    child.on('exit', (code) => fail(`exited with ${code}`));
    child.stdout!.on('data', (part: Buffer) => {
      const listeningMs = performance.now() - started;
      seen += part.toString('utf8');
      const line = seen.split('\n').find((candidate) => candidate.includes('"msg":"listening on'));
      if (!line) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.stdout!.removeAllListeners('data').resume();
      resolve({ url: (JSON.parse(line) as { url: string }).url, child, listeningMs });
    });
  });
}

import { SpeechEngineFailedError } from '../../../domain/errors.js';
import { espeakFiles } from './engine-files.js';
import type { EspeakRunner, EspeakUtterance } from './espeak-runner.js';
import type { EspeakWorkerPool } from './espeak-worker-pool.js';

/** eSpeak NG compiled to WebAssembly (the `espeak-ng` package), in the pool's worker threads. */
export class WasmEspeakRunner implements EspeakRunner {
  readonly name: string;

  constructor(private readonly pool: EspeakWorkerPool) {
    this.name = `espeak-ng@${espeakFiles().version} wasm`;
  }

  async speak({ voice, wordsPerMinute, text }: EspeakUtterance, signal?: AbortSignal, order = 0): Promise<Uint8Array> {
    const args = ['-b', '1', '-v', voice, '-s', String(wordsPerMinute), '-w', '/output.wav', '-f', '/input.txt'];
    const run = await this.pool.espeak(args, text, signal, order);
    if (run.status !== 0 || !run.output) {
      throw new SpeechEngineFailedError(`eSpeak NG could not speak the text: ${problems(run.stderr) || `exit status ${run.status}`}`);
    }
    return run.output;
  }

  /** Every worker started, its engines loaded and warmed. */
  warmUp(): Promise<void> {
    return this.pool.warmUp();
  }

  async listVoices(which: 'languages' | 'variants'): Promise<string[]> {
    const run = await this.pool.espeak([which === 'languages' ? '--voices' : '--voices=variant'], '');
    if (run.stdout.length === 0) throw new SpeechEngineFailedError(`eSpeak NG listed no voices: ${problems(run.stderr)}`);
    return run.stdout;
  }
}

/** espeak-ng's complaints, without the runtime's note about exiting. */
function problems(stderr: string[]): string {
  return stderr.filter((line) => !line.startsWith('program exited')).join('; ').slice(0, 300);
}

import { findProgram, runProgram, type NativeProgram } from '../native-program.js';
import type { EspeakRunner, EspeakUtterance } from './espeak-runner.js';

/** Debian's `espeak-ng` (or any on the PATH), when installed. */
export function findNativeEspeak(command = 'espeak-ng'): NativeProgram | null {
  return findProgram(command, /text-to-speech:\s*(\S+)/);
}

/**
 * The espeak-ng program installed on the machine, one process per call: several times faster
 * than the WebAssembly build, and the processes run beside the service, not in it.
 */
export class NativeEspeakRunner implements EspeakRunner {
  readonly name: string;

  constructor(private readonly program: NativeProgram) {
    this.name = `espeak-ng ${program.version} native`;
  }

  async speak({ voice, wordsPerMinute, text }: EspeakUtterance, signal?: AbortSignal): Promise<Uint8Array> {
    // -b 1: the input is UTF-8; --stdin: read all of it (not line by line); --stdout: a WAV file.
    const args = ['-b', '1', '-v', voice, '-s', String(wordsPerMinute), '--stdout', '--stdin'];
    return runProgram(this.program, args, text, signal);
  }

  async listVoices(which: 'languages' | 'variants'): Promise<string[]> {
    const output = await runProgram(this.program, [which === 'languages' ? '--voices' : '--voices=variant'], '');
    return Buffer.from(output).toString('utf8').split('\n');
  }
}

import { readFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { SpeechEngineFailedError } from '../../../domain/errors.js';
import { espeakFiles, wasmLameFiles } from './engine-files.js';
import { ESPEAK_WORKER_SOURCE } from './espeak-worker-source.js';
import { untilAborted } from '../until-aborted.js';

export type WorkerJob =
  | { kind: 'espeak'; args: string[]; input: string }
  | { kind: 'mp3'; pcm: ArrayBuffer; sampleRate: number; kbps: number };

export interface EspeakReply {
  status: number;
  stdout: string[];
  stderr: string[];
  output: Uint8Array | null;
}

export interface Mp3Reply {
  output: Uint8Array;
}

/** What the pool has done so far: workers started, and engines loaded (each worker loads its own once). */
export interface PoolCounts {
  workersStarted: number;
  enginesLoaded: number;
}

interface Task {
  id: number;
  job: WorkerJob;
  order: number;
  transfer: ArrayBuffer[];
  resolve(reply: unknown): void;
  reject(error: unknown): void;
  signal: AbortSignal | undefined;
  onAbort(): void;
}

interface Slot {
  worker: Worker;
  task: Task | undefined;
  /** Settles once the worker has loaded and warmed its engines, or failed to, or stopped. */
  ready: Promise<void>;
  loaded: boolean;
  settleReady(failure?: string): void;
}

type WorkerMessage = { ready: true; ms: number } | { ready: false; detail: string } | { id: number; ok: boolean; detail?: string };

/** A compiled WebAssembly.Module, opaque here: the project's lib settings carry no WebAssembly types. */
type CompiledModule = object;
const { WebAssembly } = globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledModule> } };

let compiled: Promise<CompiledModule> | undefined;

/** Workers run at a lower priority than the event loop (Linux; elsewhere at the same). */
const WORKER_NICE = 10;

/** eSpeak NG's WebAssembly (18 MB, its voice data embedded), compiled once per process. */
function espeakModule(): Promise<CompiledModule> {
  compiled ??= (async () => WebAssembly.compile(await readFile(espeakFiles().wasmPath)))().catch((error: unknown) => {
    compiled = undefined;
    throw new SpeechEngineFailedError(`eSpeak NG could not be loaded: ${(error as Error).message}`);
  });
  return compiled;
}

/**
 * At most `size` worker threads running eSpeak NG and LAME (both WebAssembly), so synthesis
 * never holds up the event loop. A worker loads its engines once, when it starts, and keeps
 * them (about 55 MB each); workers start when first needed, or all at once by `warmUp`, and
 * then stay (a worker stopped mid-job is replaced at once). Queued jobs go in `order` (lower
 * first, then first come): the parts of a text early in it before later ones. A job whose
 * signal aborts is dropped from the queue, or its worker is terminated mid-run.
 */
export class EspeakWorkerPool {
  private readonly slots = new Set<Slot>();
  private readonly idle: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;
  private warm = false;
  private wasmModule: CompiledModule | undefined;
  private readonly counts: PoolCounts = { workersStarted: 0, enginesLoaded: 0 };

  constructor(private readonly size: number) {}

  get stats(): PoolCounts {
    return { ...this.counts };
  }

  /**
   * Starts every worker and resolves once each has loaded and warmed its engines, so that no
   * request pays for that; from then on a worker that stops is replaced at once.
   */
  async warmUp(): Promise<void> {
    if (this.closed) throw new SpeechEngineFailedError('the speech engine is shutting down');
    this.wasmModule ??= await espeakModule();
    this.warm = true;
    this.fill();
    await Promise.all([...this.slots].map((slot) => slot.ready));
  }

  espeak(args: string[], input: string, signal?: AbortSignal, order = 0): Promise<EspeakReply> {
    return this.run({ kind: 'espeak', args, input }, [], signal, order) as Promise<EspeakReply>;
  }

  /** Encodes the samples; their buffer is handed to the worker (unusable afterwards here). */
  mp3(samples: Int16Array, sampleRate: number, kbps: number, signal?: AbortSignal, order = 0): Promise<Mp3Reply> {
    const pcm = samples.byteOffset === 0 && samples.byteLength === samples.buffer.byteLength
      ? (samples.buffer as ArrayBuffer)
      : (samples.slice().buffer as ArrayBuffer);
    return this.run({ kind: 'mp3', pcm, sampleRate, kbps }, [pcm], signal, order) as Promise<Mp3Reply>;
  }

  /** Rejects queued work and terminates every worker. */
  close(): void {
    this.closed = true;
    for (const task of this.queue.splice(0)) this.settle(task).reject(new SpeechEngineFailedError('the speech engine is shutting down'));
    for (const slot of [...this.slots]) this.retire(slot, 'the speech engine is shutting down');
  }

  private async run(job: WorkerJob, transfer: ArrayBuffer[], signal: AbortSignal | undefined, order: number): Promise<unknown> {
    signal?.throwIfAborted();
    if (this.closed) throw new SpeechEngineFailedError('the speech engine is shutting down');
    // Compiling the engine is shared work that goes on; an abort does not wait for it.
    this.wasmModule ??= await untilAborted(espeakModule(), signal);
    return new Promise((resolve, reject) => {
      const task: Task = { id: this.nextId++, job, order, transfer, resolve, reject, signal, onAbort: () => this.abort(task) };
      signal?.addEventListener('abort', task.onAbort, { once: true });
      const after = this.queue.findIndex((queued) => queued.order > order);
      this.queue.splice(after < 0 ? this.queue.length : after, 0, task);
      this.pump();
    });
  }

  /** Hands queued jobs to idle workers, starting workers up to the pool's size. */
  private pump(): void {
    while (this.queue.length > 0 && !this.closed && this.wasmModule) {
      const slot = this.idle.pop() ?? (this.slots.size < this.size ? this.spawn(this.wasmModule) : undefined);
      if (!slot) return;
      const task = this.queue.shift()!;
      slot.task = task;
      slot.worker.ref();
      slot.worker.postMessage({ id: task.id, ...task.job }, task.transfer);
    }
  }

  /** Once warmed, the pool keeps its full number of workers, each idle and ready (kept running until it has loaded). */
  private fill(): void {
    while (this.warm && !this.closed && this.wasmModule && this.slots.size < this.size) {
      const slot = this.spawn(this.wasmModule);
      this.idle.push(slot);
      this.pump();
    }
  }

  private spawn(wasmModule: CompiledModule): Slot {
    const workerData = { espeakUrl: espeakFiles().moduleUrl, lameUrl: wasmLameFiles().moduleUrl, wasmModule, nice: WORKER_NICE };
    const worker = new Worker(ESPEAK_WORKER_SOURCE, { eval: true, workerData });
    let settle!: (failure?: string) => void;
    const ready = new Promise<void>((resolve, reject) => {
      settle = (failure) => (failure === undefined ? resolve() : reject(new SpeechEngineFailedError(`eSpeak NG could not be loaded: ${failure}`)));
    });
    ready.catch(() => {}); // for warmUp to report; a job sent meanwhile fails on its own
    const slot: Slot = { worker, task: undefined, ready, loaded: false, settleReady: settle };
    this.slots.add(slot);
    this.counts.workersStarted++;
    worker.on('message', (message: WorkerMessage) => {
      if (!('ready' in message)) return this.answer(slot, message);
      slot.loaded = message.ready;
      if (message.ready) this.counts.enginesLoaded++;
      if (!slot.task) slot.worker.unref();
      settle(message.ready ? undefined : message.detail);
    });
    worker.on('error', (error) => this.retire(slot, `the synthesis worker failed: ${error.message}`));
    worker.on('exit', (code) => this.retire(slot, `the synthesis worker stopped (exit code ${code})`));
    return slot;
  }

  private answer(slot: Slot, reply: { id: number; ok: boolean; detail?: string }): void {
    const task = slot.task;
    if (!task || task.id !== reply.id) return;
    slot.task = undefined;
    const { resolve, reject } = this.settle(task);
    if (reply.ok) resolve(reply);
    else reject(new SpeechEngineFailedError(`eSpeak NG failed: ${reply.detail}`));
    this.release(slot);
  }

  /** An idle worker does not keep the process alive. */
  private release(slot: Slot): void {
    if (!this.slots.has(slot)) return;
    slot.worker.unref();
    this.idle.push(slot);
    this.pump();
  }

  private abort(task: Task): void {
    const queued = this.queue.indexOf(task);
    if (queued >= 0) this.queue.splice(queued, 1);
    const running = [...this.slots].find((slot) => slot.task === task);
    if (running) {
      running.task = undefined;
      this.retire(running);
    }
    this.settle(task).reject(task.signal?.reason);
  }

  /** Stops a worker; the job it was running, if any, fails with `detail`. */
  private retire(slot: Slot, detail = 'the synthesis worker was stopped'): void {
    if (!this.slots.delete(slot)) return;
    const idleAt = this.idle.indexOf(slot);
    if (idleAt >= 0) this.idle.splice(idleAt, 1);
    slot.worker.removeAllListeners('exit');
    void slot.worker.terminate().catch(() => {});
    slot.settleReady(detail);
    if (slot.task) this.settle(slot.task).reject(new SpeechEngineFailedError(detail));
    slot.task = undefined;
    // Replaced only if it had loaded its engines: one that cannot would fail again at once.
    if (slot.loaded) this.fill();
    this.pump();
  }

  /** Detaches the abort listener, so a task settles once. */
  private settle(task: Task): Pick<Task, 'resolve' | 'reject'> {
    task.signal?.removeEventListener('abort', task.onAbort);
    return { resolve: task.resolve, reject: task.reject };
  }
}

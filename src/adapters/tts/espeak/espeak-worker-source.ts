/*
 * The code each synthesis worker runs. Plain JavaScript evaluated as a script (`eval: true`),
 * so it starts the same from tsx, from mocha and from a compiled build; the packages it uses
 * come as resolved URLs in `workerData`, with the compiled eSpeak NG WebAssembly module and
 * the nice value to run at.
 *
 * On start the worker loads its engines and warms them (one short sentence spoken and encoded,
 * so V8 has compiled what a request runs), then posts {ready: true, ms} (or {ready: false,
 * detail}). Jobs sent meanwhile wait for that. Jobs, each answered with {id, ok: true, ...} or
 * {id, ok: false, detail}:
 * - espeak {args, input}: one run of the espeak-ng program, `input` written to /input.txt
 *   first; answers {status, stdout, stderr, output}, output being /output.wav if made.
 * - mp3 {pcm, sampleRate, kbps}: 16-bit mono samples encoded with LAME (WebAssembly) as one
 *   complete MP3 stream; answers {output}. The encoder is made once per worker and reset per job.
 *
 * eSpeak NG is built as its command-line program, whose main() runs once and exits. Rather than
 * a new instance per run (some 60-100 ms: instantiating, copying the voice data into the file
 * system, then main() listing all 200 voice files), one instance is made per worker and its
 * memory saved once the runtime is up; each run restores that memory (and the stack pointer),
 * calls main() again and tidies the file system, so every run starts from the same state, as a
 * fresh instance would. The voice data embedded in memory is never written, so it is left out of
 * the copy, and so are the zeros at its end (the heap not used yet), which are written as zeros. Voice files with capitals (gmw/en-US) get lower-case links, because eSpeak NG looks a
 * voice up by its lower-cased name and, not finding the file, reads every voice file to match it.
 */
export const ESPEAK_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const { espeakUrl, lameUrl, wasmModule, nice } = workerData;
// On Linux a thread has its own nice value (setpriority on "process 0" is the calling thread):
// synthesis yields the CPU to the event loop's thread when cores are scarce.
if (nice > 0 && process.platform === 'linux') {
  try {
    require('node:os').setPriority(nice);
  } catch {}
}
// Where the package's build embeds eSpeak NG's data; were it elsewhere, nothing would be linked
// and voices would only be found more slowly.
const DATA = '/usr/local/share/espeak-ng-data';
// A short sentence: measured, a longer warm-up (20 s of speech, to have more compiled optimised)
// doubled the warm-up's time and left the first request no faster.
const WARM_UP = { args: ['-b', '1', '-v', 'en-us', '-w', '/output.wav', '-f', '/input.txt'], text: 'Warming up: 1, 2, 3. Ready?' };
let espeakEngine;
let lameEncoder;

const ready = (async () => {
  const started = performance.now();
  const engine = await espeak();
  const spoken = engine.run(WARM_UP.args, WARM_UP.text);
  if (!spoken.output) throw new Error('the warm-up made no audio: ' + spoken.stderr.join('; '));
  const samples = spoken.output.slice(44, 44 + (spoken.output.length - 44 - (spoken.output.length % 2)));
  await mp3({ pcm: samples.buffer, sampleRate: 22050, kbps: 64 });
  return performance.now() - started;
})();
ready.then(
  (ms) => parentPort.postMessage({ ready: true, ms }),
  (error) => parentPort.postMessage({ ready: false, detail: String((error && error.message) || error) }),
);

parentPort.on('message', (job) => {
  ready
    .catch(() => {})
    .then(() => run(job))
    .then(
      ({ reply, transfer }) => parentPort.postMessage({ id: job.id, ok: true, ...reply }, transfer),
      (error) => parentPort.postMessage({ id: job.id, ok: false, detail: String((error && error.message) || error) }),
    );
});

async function run(job) {
  if (job.kind === 'espeak') {
    const reply = (await espeak()).run(job.args, job.input);
    return { reply, transfer: reply.output ? [reply.output.buffer] : [] };
  }
  if (job.kind === 'mp3') return mp3(job);
  throw new Error('unknown job ' + job.kind);
}

/** The worker's eSpeak NG instance, made once (again after a run that broke it). */
function espeak() {
  espeakEngine ??= loadEspeak().catch((error) => {
    espeakEngine = undefined;
    throw error;
  });
  return espeakEngine;
}

async function loadEspeak() {
  const createEspeak = (await import(espeakUrl)).default;
  let exports;
  let current = { stdout: [], stderr: [], status: 0 };
  let instantiationFailed;
  const failed = new Promise((_, reject) => (instantiationFailed = reject));
  const module = await Promise.race([
    createEspeak({
      noInitialRun: true,
      print: (line) => current.stdout.push(line),
      printErr: (line) => current.stderr.push(line),
      // The program's exit: remember the status, unwind main(); never touch process.exitCode.
      quit: (code, toThrow) => {
        current.status = code;
        throw toThrow;
      },
      instantiateWasm: (imports, receive) => {
        WebAssembly.instantiate(wasmModule, imports).then((instance) => {
          exports = instance.exports;
          receive(instance);
        }, instantiationFailed);
        return {};
      },
    }),
    failed,
  ]);
  const { FS } = module;
  linkLowerCaseVoices(FS);
  const heap = module.HEAPU8;
  // Each range as its bytes up to its last non-zero one, then zeros (most of the heap, never used yet).
  const saved = savedRanges(module).map(([from, to]) => {
    let end = to;
    while (end > from && heap[end - 1] === 0) end--;
    return { from, bytes: heap.slice(from, end), zerosTo: to };
  });
  const stackPointer = exports.stackSave();
  const encoder = new TextEncoder();

  function restore() {
    for (const { from, bytes, zerosTo } of saved) {
      heap.set(bytes, from);
      heap.fill(0, from + bytes.length, zerosTo);
    }
    exports.stackRestore(stackPointer);
  }

  /** argv on the (restored) stack: the program's name, then the arguments, then NULL. */
  function argv(args) {
    const pointers = ['espeak-ng', ...args].map((arg) => {
      const bytes = encoder.encode(arg + '\0');
      const at = exports.stackAlloc(bytes.length);
      heap.set(bytes, at);
      return at;
    });
    const at = exports.stackAlloc(4 * (pointers.length + 1));
    const words = new Uint32Array(heap.buffer, at, pointers.length + 1);
    words.set(pointers);
    words[pointers.length] = 0;
    return { argc: pointers.length, at };
  }

  return {
    run(args, input) {
      restore();
      current = { stdout: [], stderr: [], status: 0 };
      FS.writeFile('/input.txt', input);
      const { argc, at } = argv(args);
      try {
        current.status = module._main(argc, at);
      } catch (error) {
        if (!(error && error.name === 'ExitStatus')) {
          espeakEngine = undefined; // the instance may be in any state: the next run makes a new one
          throw error;
        }
      } finally {
        // What main() left open (the restored memory forgets it, the file system would not).
        for (const stream of FS.streams) if (stream && stream.fd > 2) FS.close(stream);
      }
      let output = null;
      try {
        output = FS.readFile('/output.wav');
        FS.unlink('/output.wav');
      } catch {
        output = null;
      }
      return { status: current.status, stdout: current.stdout, stderr: current.stderr, output };
    },
  };
}

/** The parts of memory a run may change: all of it but the voice data embedded in it (read only). */
function savedRanges(module) {
  const size = module.HEAPU8.length;
  const words = module.HEAPU32;
  let entry = module.___emscripten_embedded_file_data;
  if (typeof entry !== 'number' || entry <= 0) return [[0, size]];
  let low = size;
  let high = 0;
  do {
    const length = words[(entry + 4) >> 2];
    const content = words[(entry + 8) >> 2];
    low = Math.min(low, content);
    high = Math.max(high, content + length);
    entry += 12;
  } while (words[entry >> 2]);
  return low < high ? [[0, low], [high, size]] : [[0, size]];
}

/** A lower-case link beside each voice file whose name has capitals, where none exists. */
function linkLowerCaseVoices(FS) {
  const walk = (dir) => {
    let names;
    try {
      names = FS.readdir(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (name === '.' || name === '..') continue;
      const path = dir + '/' + name;
      if (FS.isDir(FS.stat(path).mode)) walk(path);
      else if (name !== name.toLowerCase() && !FS.analyzePath(dir + '/' + name.toLowerCase()).exists) FS.symlink(name, dir + '/' + name.toLowerCase());
    }
  };
  walk(DATA + '/lang');
  walk(DATA + '/voices');
}

async function mp3({ pcm, sampleRate, kbps }) {
  lameEncoder ??= import(lameUrl).then((module) => module.createMp3Encoder());
  const encoder = await lameEncoder;
  encoder.configure({ sampleRate, channels: 1, bitrate: kbps });
  const samples = new Int16Array(pcm);
  const block = new Float32Array(16384);
  const parts = [];
  let length = 0;
  const keep = (part) => {
    if (part.length === 0) return;
    parts.push(part.slice()); // a view into the encoder's memory, reused by the next call
    length += part.length;
  };
  for (let at = 0; at < samples.length; at += block.length) {
    const part = samples.subarray(at, at + block.length);
    const floats = part.length === block.length ? block : new Float32Array(part.length);
    for (let i = 0; i < part.length; i++) floats[i] = part[i] / 32768;
    keep(encoder.encode([floats]));
  }
  keep(encoder.finalize());
  const output = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    output.set(part, at);
    at += part.length;
  }
  return { reply: { output }, transfer: [output.buffer] };
}
`;

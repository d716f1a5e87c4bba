/*
 * The code each synthesis worker runs. Plain JavaScript evaluated as a script (`eval: true`),
 * so it starts the same from tsx, from mocha and from a compiled build; the packages it uses
 * come as resolved URLs in `workerData`, with the compiled eSpeak NG WebAssembly module and
 * the nice value to run at.
 *
 * Jobs, each answered with {id, ok: true, ...} or {id, ok: false, detail}:
 * - espeak {args, input}: one run of the espeak-ng program, `input` written to /input.txt
 *   first; answers {status, stdout, stderr, output}, output being /output.wav if made.
 *   One instance per run: the program exits when done and cannot be called again, and its
 *   memory (tens of MB) is freed with it.
 * - mp3 {pcm, sampleRate, kbps}: 16-bit mono samples encoded with LAME (WebAssembly) as one
 *   complete MP3 stream; answers {output}. The encoder is made once per worker and reset per job.
 */
export const ESPEAK_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { espeakUrl, lameUrl, wasmModule, nice } = workerData;
// On Linux a thread has its own nice value (setpriority on "process 0" is the calling thread):
// synthesis yields the CPU to the event loop's thread when cores are scarce.
if (nice > 0 && process.platform === 'linux') {
  try {
    require('node:os').setPriority(nice);
  } catch {}
}
let espeakModule;
let lameEncoder;

parentPort.on('message', (job) => {
  run(job).then(
    ({ reply, transfer }) => parentPort.postMessage({ id: job.id, ok: true, ...reply }, transfer),
    (error) => parentPort.postMessage({ id: job.id, ok: false, detail: String((error && error.message) || error) }),
  );
});

async function run(job) {
  if (job.kind === 'espeak') return espeak(job);
  if (job.kind === 'mp3') return mp3(job);
  throw new Error('unknown job ' + job.kind);
}

async function espeak({ args, input }) {
  espeakModule ??= import(espeakUrl);
  const createEspeak = (await espeakModule).default;
  const stdout = [];
  const stderr = [];
  let status = 0;
  let instantiationFailed;
  const failed = new Promise((_, reject) => (instantiationFailed = reject));
  const instance = await Promise.race([
    createEspeak({
      arguments: args,
      print: (line) => stdout.push(line),
      printErr: (line) => stderr.push(line),
      // The program's exit: remember the status; never touch process.exitCode.
      quit: (code, toThrow) => {
        status = code;
        throw toThrow;
      },
      preRun: [(module) => module.FS.writeFile('/input.txt', input)],
      instantiateWasm: (imports, receive) => {
        WebAssembly.instantiate(wasmModule, imports).then((made) => receive(made), instantiationFailed);
        return {};
      },
    }),
    failed,
  ]);
  let output = null;
  try {
    output = instance.FS.readFile('/output.wav');
  } catch {
    output = null;
  }
  return { reply: { status, stdout, stderr, output }, transfer: output ? [output.buffer] : [] };
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

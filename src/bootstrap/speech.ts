import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { PersonaSource } from '../application/ports/persona-source.js';
import type { SpeechSynthesizer } from '../application/ports/speech-synthesizer.js';
import { findNativeLame, NativeLameEncoder, type Mp3Encoder } from '../adapters/tts/audio/mp3-encoder.js';
import { EspeakSpeechSynthesizer } from '../adapters/tts/espeak/espeak-speech-synthesizer.js';
import { EspeakWorkerPool } from '../adapters/tts/espeak/espeak-worker-pool.js';
import { findNativeEspeak, NativeEspeakRunner } from '../adapters/tts/espeak/native-espeak-runner.js';
import { WasmEspeakRunner } from '../adapters/tts/espeak/wasm-espeak-runner.js';
import { WasmLameEncoder } from '../adapters/tts/espeak/wasm-lame-encoder.js';
import { OpenAiSpeechSynthesizer } from '../adapters/tts/openai/openai-speech-synthesizer.js';
import { ConfigInvalidError } from './config.js';
import type { Lifetime } from './lifetime.js';
import type { TtsConfig } from './tts-config.js';

/**
 * The configured speech engine: eSpeak NG (the program installed on the machine, or its
 * WebAssembly build in worker threads, as TTS_ENGINE says), or an OpenAI-compatible API.
 * The worker threads, when there are any, are `lifetime`'s to stop.
 */
export function speechSynthesizerFor(tts: TtsConfig, lifetime: Lifetime): SpeechSynthesizer {
  if (tts.provider === 'openai') {
    return new OpenAiSpeechSynthesizer({ ...tts.openai, voice: tts.voice, timeoutMs: tts.timeoutMs });
  }
  const espeak = tts.engine === 'wasm' ? null : findNativeEspeak();
  if (tts.engine === 'native' && !espeak) {
    throw new ConfigInvalidError('invalid configuration: TTS_ENGINE is "native" but the espeak-ng program is not installed (apt-get install espeak-ng lame)');
  }
  const lame = tts.engine === 'wasm' ? null : findNativeLame();
  // One pool, shared by eSpeak NG and LAME when either runs as WebAssembly; its threads start
  // only if something runs in them. One worker per synthesis allowed at once: the limit is
  // enforced before the engine is called.
  let pool: EspeakWorkerPool | undefined;
  const workers = () => (pool ??= lifetime.own(new EspeakWorkerPool(tts.maxConcurrent)));
  const runner = espeak ? new NativeEspeakRunner(espeak) : new WasmEspeakRunner(workers());
  const mp3: Mp3Encoder = lame ? new NativeLameEncoder(lame) : new WasmLameEncoder(workers());
  return new EspeakSpeechSynthesizer(runner, mp3, { defaultVoice: tts.voice });
}

/**
 * Start-up of the speech engine: it is named in the log, and eSpeak NG is warmed up, so that the
 * first request is as fast as any other: its voices listed and, for the WebAssembly build, every
 * worker started with its engines loaded and warmed (a few hundred milliseconds on two cores).
 * Start-up waits for that at most `tts.warmUpMs` (0: not at all); past it start-up goes on, and
 * so does the warm-up, in the background (a request meanwhile waits for what it needs). A failed
 * warm-up is logged, not fatal: requests then report the engine's error. Other engines (an
 * OpenAI-compatible API, a test's) have nothing to warm.
 */
export async function startSpeech(synthesizer: SpeechSynthesizer, tts: Pick<TtsConfig, 'warmUpMs'>, logger: Logger): Promise<void> {
  logger.info({ engine: synthesizer.engine }, 'speech engine');
  if (!(synthesizer instanceof EspeakSpeechSynthesizer)) return;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const warming = synthesizer.warmUp().then(
    () => {
      logger.info({ engine: synthesizer.engine, ms: elapsed() }, 'speech engine ready');
      return true;
    },
    (error: unknown) => {
      logger.warn({ engine: synthesizer.engine, detail: (error as Error).message }, 'the speech engine could not be warmed up; requests will load it');
      return true;
    },
  );
  if (tts.warmUpMs === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), tts.warmUpMs)));
  const done = await Promise.race([warming, bound]);
  clearTimeout(timer);
  if (!done) logger.warn({ engine: synthesizer.engine, boundMs: tts.warmUpMs }, `the speech engine is still warming up after ${tts.warmUpMs} ms (TTS_WARMUP_MS); starting anyway`);
}

/**
 * Start-up check of the configured voices, made only when one is configured (listing
 * eSpeak NG's voices takes a moment). TTS_VOICE is a setting of this engine: unknown, the
 * service does not start. The persona's voice may have been chosen for another engine:
 * unknown, it is ignored with a warning and the engine's default speaks.
 */
export async function checkSpeechVoices(synthesizer: SpeechSynthesizer, personas: PersonaSource, tts: TtsConfig, logger: Logger): Promise<void> {
  const personaVoice = personas.persona().voice;
  if (tts.voice === undefined && personaVoice === null) return;
  if (tts.voice !== undefined && !(await synthesizer.findVoice(tts.voice))) {
    throw new ConfigInvalidError(
      `invalid configuration: TTS_VOICE ${JSON.stringify(tts.voice)} is not a voice of the ${tts.provider} speech engine` +
        (tts.provider === 'openai' ? ' (list the server\'s voices in TTS_VOICES)' : ' (GET /api/tts/voices lists them)'),
    );
  }
  if (personaVoice !== null && !(await synthesizer.findVoice(personaVoice))) {
    logger.warn(
      { personaVoice, engine: tts.provider },
      `the persona's voice ${JSON.stringify(personaVoice)} is not a voice of the ${tts.provider} speech engine; using ${synthesizer.defaultVoice()} instead`,
    );
  }
}

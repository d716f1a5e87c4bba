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
 * Start-up check of the configured voices, made only when one is configured (listing
 * eSpeak NG's voices takes a moment). TTS_VOICE is a setting of this engine: unknown, the
 * service does not start. The persona's voice may have been chosen for another engine:
 * unknown, it is ignored with a warning and the engine's default speaks.
 */
export async function checkSpeechVoices(synthesizer: SpeechSynthesizer, personas: PersonaSource, tts: TtsConfig, logger: Logger): Promise<void> {
  logger.info({ engine: synthesizer.engine }, 'speech engine');
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

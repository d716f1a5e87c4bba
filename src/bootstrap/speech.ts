import type { Logger } from 'pino';
import type { PersonaSource } from '../application/ports/persona-source.js';
import type { SpeechSynthesizer } from '../application/ports/speech-synthesizer.js';
import { EspeakSpeechSynthesizer } from '../adapters/tts/espeak/espeak-speech-synthesizer.js';
import { OpenAiSpeechSynthesizer } from '../adapters/tts/openai/openai-speech-synthesizer.js';
import { ConfigInvalidError } from './config.js';
import type { TtsConfig } from './tts-config.js';

/** The configured speech engine: eSpeak NG in worker threads, or an OpenAI-compatible API. */
export function speechSynthesizerFor(tts: TtsConfig): SpeechSynthesizer {
  if (tts.provider === 'openai') {
    return new OpenAiSpeechSynthesizer({ ...tts.openai, voice: tts.voice, timeoutMs: tts.timeoutMs });
  }
  // One worker per synthesis allowed at once: the limit is enforced before the engine is called.
  return new EspeakSpeechSynthesizer({ workers: tts.maxConcurrent, defaultVoice: tts.voice });
}

/**
 * Start-up check of the configured voices, made only when one is configured (listing
 * eSpeak NG's voices takes a worker and half a second). TTS_VOICE is a setting of this
 * engine: unknown, the service does not start. The persona's voice may have been chosen for
 * another engine: unknown, it is ignored with a warning and the engine's default speaks.
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

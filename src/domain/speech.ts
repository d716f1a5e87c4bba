/** The rules of speech requests that every engine and every edge shares. */

/**
 * What audio can be asked for. `pcm` is raw 16-bit little-endian mono samples at
 * PCM_SAMPLE_RATE with no header (OpenAI's `pcm`); `opus` is Opus in an Ogg file. Each
 * endpoint offers the subset the contract gives it (`/api/tts`: wav and mp3).
 */
export const AUDIO_FORMATS = ['wav', 'mp3', 'pcm', 'opus'] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

/** The formats of `/api/tts` and of the audio events of a streamed reply. */
export const FILE_FORMATS = ['wav', 'mp3'] as const satisfies readonly AudioFormat[];

/** The sample rate of `pcm`, as OpenAI's speech API sends it. */
export const PCM_SAMPLE_RATE = 24_000;

/** The most text spoken at once, in Unicode code points. */
export const SPEECH_TEXT_LIMIT = 4096;

/** Speaking rate relative to the engine's normal pace. */
export const SPEECH_SPEED = { min: 0.5, max: 2, normal: 1 } as const;

export function isSpeechSpeed(speed: number): boolean {
  return Number.isFinite(speed) && speed >= SPEECH_SPEED.min && speed <= SPEECH_SPEED.max;
}

/** A speed brought into the range the engines speak at (OpenAI's clients may ask 0.25..4.0). */
export function clampSpeechSpeed(speed: number): number {
  return Math.min(SPEECH_SPEED.max, Math.max(SPEECH_SPEED.min, speed));
}

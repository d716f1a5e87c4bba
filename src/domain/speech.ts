/** The rules of speech requests that every engine and every edge shares. */

export const AUDIO_FORMATS = ['wav', 'mp3'] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

/** The most text spoken at once, in Unicode code points. */
export const SPEECH_TEXT_LIMIT = 4096;

/** Speaking rate relative to the engine's normal pace. */
export const SPEECH_SPEED = { min: 0.5, max: 2, normal: 1 } as const;

export function isSpeechSpeed(speed: number): boolean {
  return Number.isFinite(speed) && speed >= SPEECH_SPEED.min && speed <= SPEECH_SPEED.max;
}

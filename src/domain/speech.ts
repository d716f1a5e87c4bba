/** The rules of speech requests that every engine and every edge shares. */

/**
 * What audio can be asked for. `pcm` is raw 16-bit little-endian mono samples at
 * PCM_SAMPLE_RATE with no header (OpenAI's `pcm`); `opus` is Opus in an Ogg file. Each
 * endpoint offers the subset the contract gives it (`/api/tts`: wav and mp3).
 */
export const AUDIO_FORMATS = ['wav', 'mp3', 'pcm', 'opus'] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

/**
 * The formats OpenAI's speech API names: `/v1/audio/speech` takes any of them, and answers one
 * the speech engine cannot make (aac and flac always; opus without its encoder) with the
 * formats it can.
 */
export const OPENAI_AUDIO_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;

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

/**
 * The voices that read each script (eSpeak's ids), for a text in a script the default voice does
 * not read: an English voice names each Chinese character ("Chinese letter"), say, so the audio
 * says nothing and lasts about three times as long as the text needs. Kana makes Japanese of Han.
 */
const SCRIPT_VOICES: readonly (readonly [RegExp, string])[] = [
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/gu, 'ja'],
  [/\p{Script=Han}/gu, 'cmn'],
  [/\p{Script=Hangul}/gu, 'ko'],
  [/\p{Script=Arabic}/gu, 'ar'],
  [/\p{Script=Hebrew}/gu, 'he'],
  [/\p{Script=Greek}/gu, 'el'],
  [/\p{Script=Cyrillic}/gu, 'ru'],
  [/\p{Script=Devanagari}/gu, 'hi'],
  [/\p{Script=Thai}/gu, 'th'],
  [/\p{Script=Georgian}/gu, 'ka'],
  [/\p{Script=Armenian}/gu, 'hy'],
  [/\p{Script=Bengali}/gu, 'bn'],
  [/\p{Script=Tamil}/gu, 'ta'],
];

const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;

/**
 * The voice (an eSpeak id) for the script most of `text`'s letters are in, when that is not the
 * Latin script; null for a text mostly in Latin letters, or with none. A Japanese text counts its
 * Han with its kana.
 */
export function scriptVoiceOf(text: string): string | null {
  let best: { voice: string; letters: number } | null = null;
  const kana = count(text, SCRIPT_VOICES[0]![0]);
  for (const [pattern, voice] of SCRIPT_VOICES) {
    let letters = count(text, pattern);
    if (voice === 'ja' && letters > 0) letters += count(text, /\p{Script=Han}/gu);
    if (voice === 'cmn' && kana > 0) continue;
    if (letters > (best?.letters ?? 0)) best = { voice, letters };
  }
  return best && best.letters > count(text, /\p{Script=Latin}/gu) ? best.voice : null;
}

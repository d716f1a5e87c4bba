import { z } from 'zod';
import { OPENAI_AUDIO_FORMATS, SPEECH_TEXT_LIMIT } from '../../domain/speech.js';
import { clientId, says, storable, text } from './schemas.js';
import { voice, VOICE_RULE } from './tts-schemas.js';

/** OpenAI's range; the engine speaks at the nearest speed it can (0.5..2.0). */
export const OPENAI_SPEED = { min: 0.25, max: 4 } as const;
const SPEED_RULE = `must be a number from ${OPENAI_SPEED.min} to ${OPENAI_SPEED.max.toFixed(1)}`;
const FORMAT_RULE = `must be one of ${OPENAI_AUDIO_FORMATS.join(', ')}`;
const absent = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);

/**
 * POST /v1/audio/speech, as OpenAI's speech API defines it. `model` is accepted whatever it
 * names; `voice` is a voice id (ours or OpenAI's names) or OpenAI's custom-voice object
 * `{id}`; `instructions` is accepted and not used (eSpeak NG has no such control).
 */
export const openAiSpeechSchema = z.object(
  {
    model: z.string(says('must be a string naming a model (any: the configured engine speaks)')).min(1, 'must be a non-empty string').max(256, 'must be at most 256 characters').superRefine(storable),
    input: text(SPEECH_TEXT_LIMIT),
    voice: z.union([voice(), z.object({ id: voice() }).transform(({ id }) => id)], says(VOICE_RULE)),
    response_format: absent(z.enum(OPENAI_AUDIO_FORMATS, says(FORMAT_RULE))).transform((format) => format ?? 'mp3'),
    speed: absent(z.number(says(SPEED_RULE)).min(OPENAI_SPEED.min, SPEED_RULE).max(OPENAI_SPEED.max, SPEED_RULE)).transform((speed) => speed ?? 1),
    instructions: absent(z.string(says('must be a string')).max(SPEECH_TEXT_LIMIT, `must be at most ${SPEECH_TEXT_LIMIT} characters`).superRefine(storable)),
    stream_format: absent(z.enum(['audio', 'sse'], says('must be "audio" or "sse"'))).transform((format) => format ?? 'audio'),
    user_id: absent(clientId().meta({ description: 'Not OpenAI\'s: whom the speech is counted for in the usage (none when absent)' })),
  },
  { error: 'must be a JSON object' },
);

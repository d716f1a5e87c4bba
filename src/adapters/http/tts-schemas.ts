import { z } from 'zod';
import { FILE_FORMATS, SPEECH_SPEED, SPEECH_TEXT_LIMIT } from '../../domain/speech.js';
import { clientId, says, storable, text } from './schemas.js';

/** Request schemas of the speech endpoints. */

const SPEED_RULE = `must be a number from ${SPEECH_SPEED.min} to ${SPEECH_SPEED.max.toFixed(1)}`;
const FORMAT_RULE = `must be ${FILE_FORMATS.map((f) => `"${f}"`).join(' or ')}`;
/** What every speech endpoint says of a voice it does not know (VoiceNotFoundError included). */
export const VOICE_RULE = 'must be one of the voices listed by GET /api/tts/voices';
const ONE_SOURCE = 'give either text or message_id, not both';
const NO_SOURCE = 'is required (or give message_id)';
const OWNER_NEEDED = 'is required with message_id (the message\'s owner)';

const speed = () => z.number(says(SPEED_RULE)).min(SPEECH_SPEED.min, SPEED_RULE).max(SPEECH_SPEED.max, SPEED_RULE);
const format = () => z.enum(FILE_FORMATS, says(FORMAT_RULE));
export const voice = () => z.string(says(VOICE_RULE)).trim().min(1, VOICE_RULE).max(128, VOICE_RULE).superRefine(storable);

/** Optional JSON fields accept null as "not given". */
const absentAsDefault = <T extends z.ZodType, D extends z.output<T> | undefined>(schema: T, fallback: D) =>
  schema.nullish().transform((value) => (value ?? fallback) as z.output<T> | D);

/** A decimal number in a query string: "1", "0.75", ".5". */
const queryNumber = () =>
  z
    .string(says(SPEED_RULE))
    .regex(/^\s*(\d+(\.\d*)?|\.\d+)\s*$/, SPEED_RULE)
    .transform(Number)
    .pipe(speed());

export const speechSchemas = {
  /** POST /api/tts */
  body: z.object(
    {
      text: text(SPEECH_TEXT_LIMIT),
      voice: absentAsDefault(voice(), undefined),
      format: absentAsDefault(format(), 'wav' as const),
      speed: absentAsDefault(speed(), SPEECH_SPEED.normal),
      user_id: absentAsDefault(clientId().meta({ description: 'whom the speech is counted for in the usage (none when absent)' }), undefined),
    },
    { error: 'must be a JSON object' },
  ),

  /** GET /api/tts: exactly one of text and message_id. */
  query: z
    .object({
      text: text(SPEECH_TEXT_LIMIT).optional(),
      message_id: clientId().optional(),
      user_id: clientId().optional(),
      voice: voice().optional(),
      format: format().default('wav'),
      speed: queryNumber().default(SPEECH_SPEED.normal),
    })
    .superRefine((query, ctx) => {
      if (query.text !== undefined && query.message_id !== undefined) ctx.addIssue({ code: 'custom', path: ['text'], message: ONE_SOURCE });
      if (query.text === undefined && query.message_id === undefined) ctx.addIssue({ code: 'custom', path: ['text'], message: NO_SOURCE });
      if (query.message_id !== undefined && query.user_id === undefined) ctx.addIssue({ code: 'custom', path: ['user_id'], message: OWNER_NEEDED });
    }),
};

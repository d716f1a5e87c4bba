import type { Logger } from 'pino';
import { z } from 'zod';
import type { SpokenSentence } from '../../application/services/reply-speaker.js';
import { SpeakReply } from '../../application/use-cases/speak-reply.js';
import { FILE_FORMATS } from '../../domain/speech.js';
import type { StreamProtocol } from './chat-stream-encoders.js';
import { mapError } from './error-mapping.js';
import type { Resolve } from './resolve.js';
import { says } from './schemas.js';
import type { SseFrame } from './sse-writer.js';
import type { streamAudio } from './stream-event-schemas.js';
import { voice } from './tts-schemas.js';
import { parseRequest, RequestValidationError } from './validate.js';

const FORMAT_RULE = `must be ${FILE_FORMATS.map((f) => `"${f}"`).join(' or ')}`;

/** `"speech": {"voice"?, "format"?}` in a POST /v1/chat/stream body: speak the reply as it streams (null or absent: do not). */
export const replySpeechSchema = z
  .object(
    {
      voice: voice().nullish().transform((v) => v ?? undefined),
      format: z.enum(FILE_FORMATS, says(FORMAT_RULE)).nullish().transform((f) => f ?? 'mp3'),
    },
    { error: 'must be a JSON object' },
  )
  .nullish()
  .meta({ description: 'Speak the reply while it streams: one `event: audio` per finished sentence (format `mp3` unless told)' });

const speechRequestSchema = z.object({ speech: replySpeechSchema });

/** What the stream route calls while a spoken reply streams. */
export interface SpeakingReply {
  /** A piece of the reply, as sent in a delta. */
  delta(text: string): void;
  /** The reply is complete: resolves once every sentence's audio has been sent. */
  finish(): Promise<void>;
  /** The reply ended otherwise (an error, the client gone): no more audio. */
  stop(): void;
}

/**
 * The speech of a streamed reply, when the body asks for it: checked (format, voice: 400s
 * naming `speech.…`) before the route stores anything; then `start` sends, interleaved with
 * the deltas and in order, one audio frame per finished sentence, all before `done`. The
 * frames carry no SSE id. If speech fails mid-reply, audio stops (logged) and the reply goes on.
 */
export async function replySpeech(resolve: Resolve, body: unknown): Promise<{ start(send: (frames: SseFrame[]) => void, protocol: StreamProtocol, logger: Logger): SpeakingReply } | null> {
  // Most streams ask for no speech: nothing to check then.
  if (typeof body !== 'object' || body === null || (body as { speech?: unknown }).speech == null) return null;
  const asked = parseRequest(speechRequestSchema, body).speech;
  if (!asked) return null;
  const who = body as { user_id?: unknown; conversation_id?: unknown };
  const owner = typeof who.user_id === 'string' ? { userId: who.user_id, conversationId: typeof who.conversation_id === 'string' ? who.conversation_id : undefined } : undefined;
  const speaker = await prefixed('speech', () => resolve(SpeakReply).execute({ voice: asked.voice, format: asked.format, owner }));
  return {
    start(send, protocol, logger) {
      const sent = (async () => {
        try {
          for await (const sentence of speaker) send(audioFrames(sentence, protocol));
        } catch (error) {
          logger.warn({ detail: mapError(error).body.detail }, 'speech of a streamed reply failed; the reply goes on without audio');
        }
      })();
      return {
        delta: (text) => speaker.push(text),
        finish: async () => {
          speaker.end();
          await sent;
        },
        stop: () => speaker.stop(),
      };
    },
  };
}

function audioFrames({ index, text, format, audio }: SpokenSentence, protocol: StreamProtocol): SseFrame[] {
  const data: z.input<typeof streamAudio> = { index, text, format, audio: Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength).toString('base64') };
  // The AI SDK's UI message stream carries it as a transient data part (not kept in the message).
  if (protocol === 'ui-message') return [{ data: JSON.stringify({ type: 'data-audio', data, transient: true }) }];
  return [{ event: 'audio', data: JSON.stringify(data) }];
}

/** Errors about fields of a nested object name it (`speech.voice`). */
async function prefixed<T>(prefix: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const mapped = mapError(error);
    const problem = mapped.body.errors?.[0];
    if (mapped.status !== 400 || !problem) throw error;
    throw new RequestValidationError([{ field: `${prefix}.${problem.field}`, message: problem.message }]);
  }
}

import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import type { SpeechOutput } from '../../../application/services/speech-audio.js';
import { ListSpeechVoices } from '../../../application/use-cases/list-speech-voices.js';
import { SynthesizeSpeech, type PreparedSpeech, type SynthesizeSpeechInput } from '../../../application/use-cases/synthesize-speech.js';
import { CapacityExhaustedError } from '../../../domain/errors.js';
import type { AudioFormat } from '../../../domain/speech.js';
import { streamedBody } from '../audio-body.js';
import { voicesJson } from '../status-presenters.js';
import { speechSchemas } from '../tts-schemas.js';
import type { Resolve } from '../resolve.js';
import { parseRequest } from '../validate.js';

export const AUDIO_CONTENT_TYPES: Record<AudioFormat, string> = { wav: 'audio/wav', mp3: 'audio/mpeg', pcm: 'audio/pcm', opus: 'audio/ogg' };

/**
 * Audio named by its text may be kept anywhere for a day: the same URL gives the same audio
 * (until an operator changes the engine or default voice). Audio of a stored message is
 * private and revalidated every time (ETag, so usually a 304), so that it stops being
 * served once the message is deleted.
 */
const CACHE_CONTROL = { text: 'public, max-age=86400', message: 'private, no-cache' } as const;

/** Seconds a client turned away for lack of capacity should wait before trying again. */
export const RETRY_AFTER_S = '2';

export function ttsRoutes(router: Router, resolve: Resolve, json: Middleware, logger: Logger): void {
  router.get('/api/tts/voices', async (ctx) => {
    ctx.body = voicesJson(await resolve(ListSpeechVoices).execute());
  });

  router.get('/api/tts', async (ctx) => {
    const query = parseRequest(speechSchemas.query, ctx.query, 'query');
    await speak(ctx, resolve, logger, {
      text: query.text,
      messageId: query.message_id,
      userId: query.user_id,
      voice: query.voice,
      format: query.format,
      speed: query.speed,
    });
  });

  router.post('/api/tts', json, async (ctx) => {
    const body = parseRequest(speechSchemas.body, ctx.request.body);
    await speak(ctx, resolve, logger, { text: body.text, userId: body.user_id, voice: body.voice, format: body.format, speed: body.speed });
  });
}

async function speak(ctx: Context, resolve: Resolve, logger: Logger, input: SynthesizeSpeechInput): Promise<void> {
  const speech = await resolve(SynthesizeSpeech).execute(input);
  if (isNotModified(ctx, speech)) {
    ctx.status = 304;
    ctx.set('ETag', speech.etag);
    ctx.set('Cache-Control', CACHE_CONTROL[speech.source]);
    return;
  }
  const output = await openSpeech(ctx, speech);
  ctx.set('Cache-Control', CACHE_CONTROL[speech.source]);
  sendAudio(ctx, output, speech, logger);
}

/** The audio's first bytes, or the error before them (a 503 for lack of capacity says when to retry). */
export async function openSpeech(ctx: Context, speech: PreparedSpeech): Promise<SpeechOutput> {
  try {
    return await speech.open();
  } catch (error) {
    if (error instanceof CapacityExhaustedError) ctx.set('Retry-After', RETRY_AFTER_S);
    throw error;
  }
}

/**
 * A finished file goes whole, with Content-Length and the ETag; audio still being made goes
 * as it comes (chunked), with a weak ETag, since a streamed WAV's header says "length
 * unknown" where the finished file's gives its sizes.
 */
export function sendAudio(ctx: Context, output: SpeechOutput, speech: PreparedSpeech, logger: Logger): void {
  ctx.type = AUDIO_CONTENT_TYPES[speech.format];
  if (output.kind === 'whole') {
    ctx.set('ETag', speech.etag);
    ctx.body = Buffer.from(output.audio.buffer, output.audio.byteOffset, output.audio.byteLength);
    return;
  }
  ctx.set('ETag', `W/${speech.etag}`);
  ctx.body = streamedBody(ctx, output.bytes, logger);
}

/**
 * A GET whose If-None-Match names this audio's ETag (or `*`): the client already has it.
 * Other methods ignore the header (a POST is not a retrieval).
 */
function isNotModified(ctx: Context, speech: PreparedSpeech): boolean {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  const header = ctx.get('If-None-Match');
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === speech.etag);
}

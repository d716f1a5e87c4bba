import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { PreparedSpeech, SynthesizeSpeechInput } from '../../../application/use-cases/synthesize-speech.js';
import { CapacityExhaustedError } from '../../../domain/errors.js';
import { voicesJson } from '../status-presenters.js';
import { speechSchemas } from '../tts-schemas.js';
import { ListSpeechVoices } from '../../../application/use-cases/list-speech-voices.js';
import { SynthesizeSpeech } from '../../../application/use-cases/synthesize-speech.js';
import type { Resolve } from '../resolve.js';
import { parseRequest } from '../validate.js';

const CONTENT_TYPES = { wav: 'audio/wav', mp3: 'audio/mpeg' } as const;

/**
 * Audio named by its text may be kept anywhere for a day: the same URL gives the same audio
 * (until an operator changes the engine or default voice). Audio of a stored message is
 * private and revalidated every time (ETag, so usually a 304), so that it stops being
 * served once the message is deleted.
 */
const CACHE_CONTROL = { text: 'public, max-age=86400', message: 'private, no-cache' } as const;

/** Seconds a client turned away for lack of capacity should wait before trying again. */
const RETRY_AFTER_S = '2';

export function ttsRoutes(router: Router, resolve: Resolve, json: Middleware): void {
  router.get('/api/tts/voices', async (ctx) => {
    ctx.body = voicesJson(await resolve(ListSpeechVoices).execute());
  });

  router.get('/api/tts', async (ctx) => {
    const query = parseRequest(speechSchemas.query, ctx.query, 'query');
    await speak(ctx, resolve, {
      text: query.text,
      messageId: query.message_id,
      voice: query.voice,
      format: query.format,
      speed: query.speed,
    });
  });

  router.post('/api/tts', json, async (ctx) => {
    const body = parseRequest(speechSchemas.body, ctx.request.body);
    await speak(ctx, resolve, { text: body.text, voice: body.voice, format: body.format, speed: body.speed });
  });
}

async function speak(ctx: Context, resolve: Resolve, input: SynthesizeSpeechInput): Promise<void> {
  const speech = await resolve(SynthesizeSpeech).execute(input);
  if (isNotModified(ctx, speech)) {
    ctx.status = 304;
    ctx.set('ETag', speech.etag);
    ctx.set('Cache-Control', CACHE_CONTROL[speech.source]);
    return;
  }
  let audio: Uint8Array;
  try {
    audio = await speech.audio();
  } catch (error) {
    if (error instanceof CapacityExhaustedError) ctx.set('Retry-After', RETRY_AFTER_S);
    throw error;
  }
  ctx.set('ETag', speech.etag);
  ctx.set('Cache-Control', CACHE_CONTROL[speech.source]);
  ctx.type = CONTENT_TYPES[speech.format];
  ctx.body = Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength);
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

import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import type { SpeechOutput } from '../../../application/services/speech-audio.js';
import { SynthesizeSpeech } from '../../../application/use-cases/synthesize-speech.js';
import { clampSpeechSpeed } from '../../../domain/speech.js';
import { codePointLength } from '../../../domain/text.js';
import { mapError } from '../error-mapping.js';
import { openAiError, openAiErrors, postOnly } from '../openai-errors.js';
import { openAiSpeechSchema } from '../openai-speech-schemas.js';
import { SseWriter } from '../sse-writer.js';
import type { Resolve } from '../resolve.js';
import { parseRequest } from '../validate.js';
import { openSpeech, sendAudio } from './tts-routes.js';

/** Bytes of audio per `speech.audio.delta` event at most: even (whole 16-bit samples) and a multiple of 3 (no base64 padding inside). */
const DELTA_BYTES = 48 * 1024;
/** A model name echoed in a header only when it is plain printable ASCII. */
const HEADER_SAFE = /^[\x20-\x7e]{1,256}$/;

/**
 * POST /v1/audio/speech: OpenAI's speech API, so OpenAI's SDKs and the front ends that speak
 * to "OpenAI-compatible TTS" (Open WebUI, LibreChat) can use this service. The audio is
 * streamed as /api/tts streams it; with `stream_format: "sse"` it comes as OpenAI's
 * `speech.audio.delta` events (base64) and a closing `speech.audio.done`. `model` is
 * accepted whatever it names and echoed in `X-Model`: the configured engine speaks.
 */
export function openAiSpeechRoutes(router: Router, resolve: Resolve, json: Middleware, logger: Logger, pingIntervalMs: number): void {
  const errors = openAiErrors(logger);
  router.post('/v1/audio/speech', errors, json, async (ctx) => {
    const body = parseRequest(openAiSpeechSchema, ctx.request.body);
    const speech = await resolve(SynthesizeSpeech).execute({
      text: body.input,
      userId: body.user_id,
      voice: body.voice,
      format: body.response_format,
      speed: clampSpeechSpeed(body.speed),
    });
    const output = await openSpeech(ctx, speech);
    if (HEADER_SAFE.test(body.model)) ctx.set('X-Model', body.model);
    if (body.stream_format === 'sse') await sendEvents(ctx, output, codePointLength(body.input), pingIntervalMs, logger);
    else sendAudio(ctx, output, speech, logger);
  });
  router.all('/v1/audio/speech', errors, postOnly());
}

/** The audio as OpenAI's speech events; a failure after the first one is an `error` event in OpenAI's shape. */
async function sendEvents(ctx: Context, output: SpeechOutput, characters: number, pingIntervalMs: number, logger: Logger): Promise<void> {
  const sse = SseWriter.open(ctx, {}, pingIntervalMs);
  const event = (type: string, fields: object) => [{ event: type, data: JSON.stringify({ type, ...fields }) }];
  try {
    for await (const bytes of output.kind === 'whole' ? [output.audio] : output.bytes) {
      for (let at = 0; at < bytes.length && !sse.gone; at += DELTA_BYTES) {
        sse.send(event('speech.audio.delta', { audio: Buffer.from(bytes.subarray(at, at + DELTA_BYTES)).toString('base64') }));
      }
      if (sse.gone) return;
    }
    // eSpeak NG has no tokens: usage counts the input's characters.
    sse.send(event('speech.audio.done', { usage: { input_tokens: characters, output_tokens: 0, total_tokens: characters } }));
  } catch (error) {
    const mapped = mapError(error);
    logger.warn({ requestId: ctx.state.requestId, path: ctx.path, status: mapped.status, detail: mapped.body.detail }, 'speech events cut after their first audio');
    sse.send(event('error', { error: openAiError(error, mapped) }));
  } finally {
    sse.end();
  }
}

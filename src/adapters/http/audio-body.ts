import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import { mapError } from './error-mapping.js';
import { logUnexpected } from './middleware/error-handler.js';
import { responseClosed } from './sse-writer.js';

/**
 * A response body of audio bytes as they are made (chunked transfer). A failure after the
 * first bytes cannot become an error status any more: the connection is cut instead, so the
 * client sees an incomplete response (never a truncated file passed off as whole), and the
 * failure is logged.
 */
export function streamedBody(ctx: Context, bytes: AsyncIterable<Uint8Array>, logger: Logger): Readable {
  async function* guarded(): AsyncGenerator<Uint8Array> {
    try {
      yield* bytes;
    } catch (error) {
      // The client went away (Koa destroys this stream, and Node throws that into the generator):
      // nobody to answer and nothing went wrong here.
      if (responseClosed(ctx.res) || (error as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
      const mapped = mapError(error);
      if (mapped.unexpected) logUnexpected(logger, ctx, error);
      else logger.warn({ requestId: ctx.state.requestId, path: ctx.path, status: mapped.status, detail: mapped.body.detail }, 'audio stream cut after its first bytes');
      ctx.res.destroy();
    }
  }
  return Readable.from(guarded(), { objectMode: false });
}

import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { ConversationNotFoundError } from '../../domain/errors.js';
import { ItemNotFoundError, ResponseNotFoundError } from '../../domain/response-errors.js';
import { errorBody, HttpProblem, mapError, type MappedError } from './error-mapping.js';
import { logUnexpected } from './middleware/error-handler.js';
import { openAiError } from './openai-errors.js';
import { openAiErrorJson } from './speech-presenters.js';

/** The paths of OpenAI's Responses, Conversations, Models and speech APIs, where every error is in OpenAI's shape (the identity check's 401 and 403 too). */
export const OPENAI_API_PATHS = /^\/v1\/(responses|conversations|models|audio)(\/|$)/;

/**
 * OpenAI's other APIs, which this service does not offer: their clients (an SDK's first call is
 * often `chat.completions.create`) are told so in OpenAI's shape, which they read, rather than in
 * ours, which an SDK shows as "404 status code (no body)". `/v1/chat` itself is ours.
 */
const OTHER_OPENAI_APIS = /^\/v1\/(chat\/completions|completions|embeddings|images|files|uploads|batches|moderations|fine_tuning|assistants|threads|vector_stores|realtime|evals|containers)(\/|$)/;
const OFFERED = "this service offers OpenAI's Responses API (client.responses.create), Conversations, Models and speech (audio.speech) APIs";

/** Our mapping of an error, with the errors only these APIs raise. */
function mappedOf(error: unknown): MappedError {
  if (error instanceof ResponseNotFoundError || (error instanceof ConversationNotFoundError && error.field !== null)) {
    return { status: 404, body: errorBody(error.message, error.field === null ? undefined : [{ field: error.field, message: 'not found' }]), unexpected: false };
  }
  if (error instanceof ItemNotFoundError) return { status: 404, body: errorBody(error.message), unexpected: false };
  return mapError(error);
}

/** An error as OpenAI's API gives it: its status, and `{"error": {message, type, param, code}}` (with our `detail` and `status`). */
export function openAiFailure(error: unknown) {
  const mapped = mappedOf(error);
  return { status: mapped.status, body: openAiErrorJson(openAiError(error, mapped)), unexpected: mapped.unexpected };
}

/**
 * Errors on OpenAI's paths in OpenAI's shape, whatever raised them: a route, the identity check
 * before it (401 with WWW-Authenticate, 403), or a method the path does not answer (405 with Allow).
 */
export function openAiPathErrors(logger: Logger): Middleware {
  const inOpenAiShape = async (ctx: Context, next: () => Promise<unknown>) => {
    try {
      await next();
      // A path under these APIs that no route answers: OpenAI's 404 (as OpenAI answers an unknown URL), so its clients read it.
      if (ctx.body == null && ctx.status === 404) throw new HttpProblem(404, `no endpoint at ${ctx.path}`);
      if (ctx.body == null && ctx.status === 405) throw new HttpProblem(405, `method ${ctx.method} not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}`);
    } catch (error) {
      answerInOpenAiShape(ctx, error, logger);
    }
  };
  const notOffered = async (ctx: Context) => answerInOpenAiShape(ctx, new HttpProblem(404, `no endpoint at ${ctx.path}: ${OFFERED}`), logger);
  // Other paths pass straight through, without an async frame of this middleware's.
  return (ctx, next) => (OPENAI_API_PATHS.test(ctx.path) ? inOpenAiShape(ctx, next) : OTHER_OPENAI_APIS.test(ctx.path) ? notOffered(ctx) : next());
}

/** Answers `error` in OpenAI's shape (logged when unexpected), unless the response has begun or the client is gone. */
export function answerInOpenAiShape(ctx: Context, error: unknown, logger: Logger): void {
  const failure = openAiFailure(error);
  if (failure.unexpected) logUnexpected(logger, ctx, error);
  if (ctx.headerSent || !ctx.writable) return;
  ctx.status = failure.status;
  ctx.body = failure.body;
  // The model failed after the request's input was stored: OpenAI's SDKs retry a 5xx by default
  // (twice), and each try would store the question again. `x-should-retry` is the header they obey.
  if (failure.status === 502 || failure.status === 504) ctx.set('x-should-retry', 'false');
}

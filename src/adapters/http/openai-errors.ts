import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { DomainError, UsageLimitReachedError } from '../../domain/errors.js';
import { HttpProblem, mapError, type MappedError } from './error-mapping.js';
import { logUnexpected } from './middleware/error-handler.js';
import { openAiErrorJson, type OpenAiError } from './speech-presenters.js';


/** Our names for fields that OpenAI's speech API names otherwise. */
const OPENAI_FIELDS: Record<string, string> = { text: 'input', format: 'response_format' };

const HTTP_CODES: Record<number, string> = {
  400: 'invalid_json',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'request_too_large',
  415: 'unsupported_media_type',
  500: 'internal_error',
};

/** An error as OpenAI's API would give it, from our mapping of it (same status, same words). */
export function openAiError(error: unknown, mapped: MappedError): OpenAiError {
  const problem = mapped.body.errors?.[0];
  const param = problem ? (OPENAI_FIELDS[problem.field] ?? problem.field) : null;
  const message = problem && param !== problem.field && mapped.body.detail.startsWith(`${problem.field}:`) ? param + mapped.body.detail.slice(problem.field.length) : mapped.body.detail;
  // OpenAI's 429s name the limit in `type` (`requests`, `tokens`), with code `rate_limit_exceeded`.
  const type = error instanceof UsageLimitReachedError ? error.limit : mapped.status >= 500 ? 'server_error' : 'invalid_request_error';
  let code: string | null = HTTP_CODES[mapped.status] ?? null;
  if (error instanceof DomainError || (error instanceof HttpProblem && error.code !== undefined)) code = error.code!;
  else if (problem) code = problem.message === 'is required' ? 'missing_required_parameter' : 'invalid_value';
  return { message, type, param, code };
}

/**
 * Errors of OpenAI-compatible endpoints in OpenAI's shape, `{"error": {message, type, param,
 * code}}`, with the statuses of ours, so OpenAI's SDKs report them properly. Our own
 * `detail` and `status` ride along, so the body is also every other error's shape.
 */
export function openAiErrors(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const mapped = mapError(error);
      if (mapped.unexpected) logUnexpected(logger, ctx, error);
      if (ctx.headerSent || !ctx.writable) return;
      ctx.status = mapped.status;
      ctx.body = openAiErrorJson(openAiError(error, mapped));
    }
  };
}

/**
 * 405 for the other methods of a POST-only path, with Allow, in the same shape. OPTIONS is
 * answered as on every other path: 200, Allow, no body.
 */
export function postOnly(): Middleware {
  return (ctx) => {
    ctx.set('Allow', 'POST');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 200;
      ctx.body = '';
      return;
    }
    throw new HttpProblem(405, `method ${ctx.method} not allowed on ${ctx.path}; allowed: POST`);
  };
}

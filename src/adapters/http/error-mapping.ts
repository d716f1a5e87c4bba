import {
  CapacityExhaustedError,
  ChatModelFailedError,
  ChatModelTimedOutError,
  ConversationNotFoundError,
  DependencyUnavailableError,
  DomainError,
  FieldInvalidError,
  MessageIdConflictError,
  MessageNotFoundError,
  ReplyInProgressError,
  ReplyInterruptedError,
  SessionConflictError,
  SpeechEngineFailedError,
  SpeechEngineTimedOutError,
  VoiceNotFoundError,
  AudioFormatUnsupportedError,
  UsageLimitReachedError,
} from '../../domain/errors.js';
import type { z } from 'zod';
import type { errorResponse } from './response-schemas.js';
import { VOICE_RULE } from './tts-schemas.js';
import { RequestValidationError, type FieldProblem } from './validate.js';

/** An HTTP-level refusal (404, 405, 413, 415...) with the detail the client should read. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    detail: string,
    /** The `code` OpenAI's error shape gives it, where it names one of its own (`model_not_found`). */
    readonly code?: string,
  ) {
    super(detail);
  }
}

/** The error body of every failure, typed by the schema /openapi.json shows for it. */
export type ErrorBody = z.input<typeof errorResponse>;

export interface MappedError {
  status: number;
  body: ErrorBody;
  /** Unexpected faults are logged with their stack; the client sees only a generic detail. */
  unexpected: boolean;
}

type DomainErrorClass = abstract new (...args: never[]) => DomainError;

/** The one table from domain error to HTTP status. */
const STATUS_BY_ERROR: [DomainErrorClass, number][] = [
  [FieldInvalidError, 400],
  [ConversationNotFoundError, 404],
  [MessageNotFoundError, 404],
  [MessageIdConflictError, 409],
  [SessionConflictError, 409],
  [ReplyInProgressError, 409],
  [UsageLimitReachedError, 429],
  [ChatModelFailedError, 502],
  [SpeechEngineFailedError, 502],
  [CapacityExhaustedError, 503],
  [DependencyUnavailableError, 503],
  [ReplyInterruptedError, 503],
  [ChatModelTimedOutError, 504],
  [SpeechEngineTimedOutError, 504],
];

/** Client errors raised by Koa and its body parser (http-errors), by status. */
const HTTP_DETAILS: Record<number, string> = {
  400: 'body: malformed JSON',
  413: 'body: larger than the request size limit',
  415: 'body: unsupported content encoding',
};

export const errorBody = (detail: string, errors?: FieldProblem[]): ErrorBody =>
  errors ? { detail, status: 'error', errors } : { detail, status: 'error' };

export function mapError(error: unknown): MappedError {
  if (error instanceof HttpProblem) {
    return { status: error.status, body: errorBody(error.message), unexpected: false };
  }
  if (error instanceof RequestValidationError) {
    return { status: 400, body: errorBody(error.message, error.problems), unexpected: false };
  }
  if (error instanceof VoiceNotFoundError) {
    return { status: 400, body: errorBody(`voice: ${VOICE_RULE}`, [{ field: 'voice', message: VOICE_RULE }]), unexpected: false };
  }
  if (error instanceof AudioFormatUnsupportedError) {
    const reason = `must be one of ${error.supported.join(', ')} (this speech engine cannot make ${error.format})`;
    return { status: 400, body: errorBody(`format: ${reason}`, [{ field: 'format', message: reason }]), unexpected: false };
  }
  if (error instanceof DomainError) {
    const status = STATUS_BY_ERROR.find(([type]) => error instanceof type)?.[1];
    if (status !== undefined) {
      const errors = error instanceof FieldInvalidError ? [{ field: error.field, message: error.reason }] : undefined;
      return { status, body: errorBody(error.message, errors), unexpected: false };
    }
  }
  const status = httpStatusOf(error);
  if (status !== undefined && status >= 400 && status < 500) {
    const exposed = (error as { expose?: boolean; message?: string }).expose;
    const detail = HTTP_DETAILS[status] ?? (exposed ? String((error as Error).message) : 'invalid request');
    return { status, body: errorBody(detail), unexpected: false };
  }
  return { status: 500, body: errorBody('internal server error'), unexpected: true };
}

function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const value = typeof status === 'number' ? status : statusCode;
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

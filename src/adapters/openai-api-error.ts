import { STATUS_CODES } from 'node:http';
import type { APIError } from 'openai';

/** A short machine code from the upstream error body (`invalid_api_key`), never its free text. */
const SAFE_CODE = /^[A-Za-z0-9_.-]{1,64}$/u;

/**
 * What an OpenAI-compatible server's error may show a client: its code, when it is a short
 * machine code (` (invalid_api_key)`), else nothing — the free text may echo secrets.
 */
export function safeErrorCode(error: APIError): string {
  return typeof error.code === 'string' && SAFE_CODE.test(error.code) ? ` (${error.code})` : '';
}

/** `401 Unauthorized (invalid_api_key)`: the status, its name and the safe code. */
export function statusLine(error: APIError & { status: number }): string {
  return `${error.status} ${STATUS_CODES[error.status] ?? 'Unknown Status'}${safeErrorCode(error)}`;
}

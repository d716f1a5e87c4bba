import type { Body } from './presenters.js';
import type * as out from './response-schemas.js';

/** The answers of the OpenAI-compatible speech endpoint, typed by their response schemas as in presenters.ts. */

/** OpenAI's error object: what its SDKs read (`error.message`, `type`, `param`, `code`). */
export type OpenAiError = Body<typeof out.openAiErrorResponse>['error'];

/** POST /v1/audio/speech's errors: OpenAI's error object, with our `detail` and `status` beside it (every other error's shape). */
export function openAiErrorJson(error: OpenAiError): Body<typeof out.openAiErrorResponse> {
  return { error, detail: error.message, status: 'error' };
}

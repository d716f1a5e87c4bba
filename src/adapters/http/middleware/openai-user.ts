import type { Context, Middleware } from 'koa';
import { clientIdProblem } from '../../../domain/ids.js';
import { HttpProblem } from '../error-mapping.js';
import { RequestValidationError } from '../validate.js';
import { unauthorized } from './bearer.js';

declare module 'koa' {
  interface DefaultState {
    /** The user of a request to OpenAI's APIs (openai-user.ts). */
    openAiUser?: string;
  }
}

const SCHEME = /^bearer[ ]+(.+)$/i;

/**
 * Who asks, on OpenAI's paths, where requests name no `user_id`: with identity on, the user of
 * the credential the authentication checked (an API key that acts for any user names the user
 * in the query's `user_id`, as on every other path); with identity off, the bearer value itself
 * names the user (`Authorization: Bearer alice`, which is what OpenAI's SDKs send as the API key).
 * No Authorization header, or a value that is no user id: 401.
 */
export function openAiUser(identityOn: boolean): Middleware {
  return async (ctx, next) => {
    ctx.state.openAiUser = identityOn ? userOfIdentity(ctx) : userOfBearer(ctx);
    await next();
  };
}

function userOfIdentity(ctx: Context): string {
  const own = ctx.state.identity?.userId;
  if (own != null) return own;
  const named = ctx.query.user_id;
  if (named === undefined) throw new RequestValidationError([{ field: 'user_id', message: 'is required in the query with an API key that acts for any user' }]);
  const problem = clientIdProblem(named);
  if (problem !== null) throw new RequestValidationError([{ field: 'user_id', message: problem }]);
  return named as string;
}

function userOfBearer(ctx: Context): string {
  const header = ctx.get('Authorization').trim();
  if (header === '') {
    ctx.set('WWW-Authenticate', 'Bearer');
    throw new HttpProblem(401, "authentication required: send Authorization: Bearer <user id> (with OpenAI's SDKs, the API key names the user)");
  }
  const match = SCHEME.exec(header);
  const user = match?.[1]!.trim() ?? '';
  if (!match || clientIdProblem(user) !== null) throw unauthorized(ctx, 'the bearer value must name the user: Authorization: Bearer <user id>');
  return user;
}

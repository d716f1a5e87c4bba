import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { CancelResponse } from '../../../application/responses/cancel-response.js';
import { CreateResponse } from '../../../application/responses/create-response.js';
import { DeleteResponse } from '../../../application/responses/delete-response.js';
import { ListInputItems } from '../../../application/responses/list-input-items.js';
import type { ResponseEvent, ResponseStream } from '../../../application/responses/response-view.js';
import { RetrieveResponse } from '../../../application/responses/retrieve-response.js';
import { openAiUser } from '../middleware/openai-user.js';
import { deletedResponseJson, itemListJson, responseJson } from '../openai-presenters.js';
import type { OpenAiRequestSchemas } from '../openai-request-schemas.js';
import { pumpResponse } from '../openai-response-stream.js';
import { parseOpenAi } from '../openai-validate.js';
import type { Resolve } from '../resolve.js';

export interface OpenAiRouteOptions {
  logger: Logger;
  pingIntervalMs: number;
  /** Identity on (AUTH_MODE=oidc): the user is the credential's, not the bearer value. */
  identity: boolean;
  /** What a client's disconnect does to the streamed response it started (STREAM_ON_DISCONNECT). */
  onDisconnect: 'continue' | 'cancel';
}

const user = (ctx: Context): string => ctx.state.openAiUser!;

/** The end of a response, read to it. */
async function endOf(stream: ResponseStream): Promise<Extract<ResponseEvent, { type: 'end' }>> {
  for await (const event of stream.events(0, new AbortController().signal)) if (event.type === 'end') return event;
  throw new Error('the response ended without its end');
}

/**
 * OpenAI's Responses API (`client.responses.*` of OpenAI's SDKs, with `baseURL` this service's
 * `/v1`): a response is an assistant reply of the native API, with the same id. Errors are in
 * OpenAI's shape (openai-path-errors.ts, for the whole path).
 */
export function openAiResponseRoutes(router: Router, resolve: Resolve, schemas: OpenAiRequestSchemas, json: Middleware, options: OpenAiRouteOptions): void {
  const who = openAiUser(options.identity);
  const pump = { logger: options.logger, pingIntervalMs: options.pingIntervalMs };

  router.post('/v1/responses', json, who, async (ctx) => {
    const body = parseOpenAi(schemas.createResponse, ctx.request.body);
    const stream = await resolve(CreateResponse).execute({
      userId: user(ctx),
      input: body.input,
      store: body.store,
      background: body.background,
      metadata: body.metadata,
      ...(body.model !== undefined ? { model: body.model } : {}),
      ...(body.instructions !== undefined ? { instructions: body.instructions } : {}),
      ...(body.previous_response_id !== undefined ? { previousResponseId: body.previous_response_id } : {}),
      ...(body.conversation !== undefined ? { conversationId: body.conversation } : {}),
      ...(body.max_output_tokens !== undefined ? { maxOutputTokens: body.max_output_tokens } : {}),
      ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    });
    if (body.stream) {
      const cancel = options.onDisconnect === 'cancel' && !body.background ? stream.cancel : undefined;
      return pumpResponse(ctx, stream, { ...pump, startingAfter: null, onDisconnect: cancel });
    }
    if (body.background) {
      ctx.body = responseJson(stream.begun);
      return;
    }
    const end = await endOf(stream);
    if (end.failure !== undefined) throw end.failure;
    ctx.body = responseJson(end.view);
  });

  router.get('/v1/responses/:response_id', who, async (ctx) => {
    const { response_id: responseId } = parseOpenAi(schemas.responsePath, ctx.params, 'path');
    const query = parseOpenAi(schemas.retrieveResponse, ctx.query, 'query');
    const retrieve = resolve(RetrieveResponse);
    if (!query.stream) {
      ctx.body = responseJson(await retrieve.execute({ userId: user(ctx), responseId }));
      return;
    }
    await pumpResponse(ctx, await retrieve.stream({ userId: user(ctx), responseId }), { ...pump, startingAfter: query.starting_after ?? null });
  });

  router.post('/v1/responses/:response_id/cancel', json, who, async (ctx) => {
    const { response_id: responseId } = parseOpenAi(schemas.responsePath, ctx.params, 'path');
    ctx.body = responseJson(await resolve(CancelResponse).execute({ userId: user(ctx), responseId }));
  });

  router.delete('/v1/responses/:response_id', who, async (ctx) => {
    const { response_id: responseId } = parseOpenAi(schemas.responsePath, ctx.params, 'path');
    await resolve(DeleteResponse).execute({ userId: user(ctx), responseId });
    ctx.body = deletedResponseJson(responseId);
  });

  router.get('/v1/responses/:response_id/input_items', who, async (ctx) => {
    const { response_id: responseId } = parseOpenAi(schemas.responsePath, ctx.params, 'path');
    const query = parseOpenAi(schemas.listQuery, ctx.query, 'query');
    const page = await resolve(ListInputItems).execute({ userId: user(ctx), responseId, limit: query.limit, order: query.order, ...(query.after !== undefined ? { after: query.after } : {}) });
    ctx.body = itemListJson(page);
  });
}

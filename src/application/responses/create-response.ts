import { FieldInvalidError } from '../../domain/errors.js';
import type { ChatModel, ChatRequest } from '../ports/chat-model.js';
import type { ResponseRecord, StringMetadata } from '../ports/response-repository.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ReplyFeed } from '../replies/reply-feed.js';
import type { ReplyJobs } from '../replies/reply-jobs.js';
import type { ContextMessage, StartTurn } from '../replies/start-turn.js';
import type { EphemeralResponses } from './ephemeral-response.js';
import { inputTokensOf, requestSettings } from './model-request.js';
import { ownedConversation, ownedReply } from './owned.js';
import type { ResponseStream } from './response-view.js';
import { storedResponseStream } from './stored-response.js';
import { estimatedUsage } from '../usage/estimated-usage.js';

export interface CreateResponseInput {
  userId: string;
  /** The model the request named (any: the configured one answers); absent: the configured one. */
  model?: string;
  /** The request's items, in order; the last is the user's question. */
  input: ContextMessage[];
  instructions?: string;
  previousResponseId?: string;
  conversationId?: string;
  /** False: nothing is stored (and no conversation is named in the answer). */
  store: boolean;
  background: boolean;
  metadata: StringMetadata;
  maxOutputTokens?: number;
  temperature?: number;
}

/**
 * POST /v1/responses: a turn of the native chat, asked another way. The input items are stored
 * as messages before the reply (the last one is the question), after the head of `conversation`,
 * after `previous_response_id` (a branch, where that response is not the head), or in a new
 * conversation; the reply is a durable reply of the service, and the request's own fields are
 * kept beside it. With `store: false` nothing is kept: the model is asked with the history the
 * request names, and the answer lives only as long as the request.
 */
export class CreateResponse {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly startTurn: StartTurn,
    private readonly model: ChatModel,
    private readonly jobs: ReplyJobs,
    private readonly feed: ReplyFeed,
    private readonly ephemeral: EphemeralResponses,
  ) {}

  async execute(input: CreateResponseInput): Promise<ResponseStream> {
    if (input.previousResponseId !== undefined && input.conversationId !== undefined) {
      throw new FieldInvalidError('conversation', 'must not be given together with previous_response_id');
    }
    const place = await this.placeOf(input);
    if (!input.store) return this.ephemeral.start(input, place);
    const question = input.input.at(-1)!;
    const turn = await this.startTurn.execute(
      {
        text: question.text,
        userId: input.userId,
        ...(place.conversationId !== undefined ? { conversationId: place.conversationId } : {}),
        ...(place.parentId !== undefined ? { parentId: place.parentId } : {}),
        context: input.input.slice(0, -1),
      },
      this.model.name ?? 'unknown',
    );
    const request: ChatRequest = { ...turn.request!, ...requestSettings(input) };
    const record: ResponseRecord = {
      responseId: turn.reply.messageId,
      model: input.model ?? this.model.name ?? 'unknown',
      instructions: input.instructions ?? null,
      previousResponseId: input.previousResponseId ?? null,
      background: input.background,
      metadata: input.metadata,
      inputIds: [...turn.context.map((m) => m.messageId), turn.userMessage.messageId],
      maxOutputTokens: input.maxOutputTokens ?? null,
      temperature: input.temperature ?? null,
      inputTokens: inputTokensOf(this.model, request),
    };
    await this.unitOfWork.run((r) => r.responses.save(record), { atomic: false });
    this.jobs.start(turn.reply, (stop) => this.model.stream(request, stop.signal), turn.naming, (text) => estimatedUsage(this.model, request, text));
    const replyId = turn.reply.messageId;
    return { ...storedResponseStream(this.feed, turn.reply, record), cancel: () => void this.jobs.requestStop(replyId).catch(() => undefined) };
  }

  /** Where the turn goes: the conversation (its head), or after the previous response; neither: a new conversation. */
  private async placeOf(input: CreateResponseInput): Promise<{ conversationId?: string; parentId?: string }> {
    return this.unitOfWork.run(
      async (r) => {
        if (input.previousResponseId !== undefined) {
          const previous = await ownedReply(r, input.userId, input.previousResponseId, 'previous_response_id');
          return { conversationId: previous.conversationId, parentId: previous.messageId };
        }
        if (input.conversationId !== undefined) return { conversationId: (await ownedConversation(r, input.userId, input.conversationId, 'conversation')).conversationId };
        return {};
      },
      { atomic: false },
    );
  }
}

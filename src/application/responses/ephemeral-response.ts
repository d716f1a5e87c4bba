import { recentHistory } from '../../domain/chat-history.js';
import { ChatModelFailedError, DomainError } from '../../domain/errors.js';
import { Message } from '../../domain/message.js';
import { finished, grown, openReply, replyLength, type ReplyOutcome } from '../../domain/reply.js';
import type { ChatLimits } from '../chat-limits.js';
import type { ChatModel, ChatRequest } from '../ports/chat-model.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { PersonaSource } from '../ports/persona-source.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { CreateResponseInput } from './create-response.js';
import { inputTokensOf, requestSettings } from './model-request.js';
import type { ResponseEvent, ResponseStream, ResponseView } from './response-view.js';
import { estimatedUsage } from '../usage/estimated-usage.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';

/** The conversation a response not stored pretends to belong to (its messages are never stored). */
const NOWHERE = 'not-stored';

/**
 * Responses with `store: false`: the model is asked with the history the request names (the
 * branch of `previous_response_id`, or the active branch of `conversation`) and the request's
 * items, and its answer is streamed to the one request that asked. Nothing is written: the
 * response cannot be read again, and a client that goes away stops the model.
 */
export class EphemeralResponses {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly personaSource: PersonaSource,
    private readonly model: ChatModel,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly limits: ChatLimits,
    private readonly usage?: UsageRecorder,
  ) {}

  async start(input: CreateResponseInput, place: { conversationId?: string; parentId?: string }): Promise<ResponseStream> {
    const above = await this.branchAbove(input.userId, place);
    const now = this.clock.now();
    const message = (role: Message['role'], text: string) =>
      Message.create({ messageId: this.ids.newId(), conversationId: NOWHERE, userId: input.userId, role, text, createdAt: now, metadata: {}, replyTo: null });
    const context = input.input.slice(0, -1).map((m) => message(m.role, m.text));
    const question = message('user', input.input.at(-1)!.text);
    const history = recentHistory([...context].reverse().concat(above), question, { messages: this.limits.historyMessages, chars: this.limits.historyChars });
    const request: ChatRequest = { persona: this.personaSource.persona(), history, text: question.text, ...requestSettings(input) };
    const reply = openReply(question, this.ids.newId(), this.model.name ?? 'unknown', now);
    const begun: ResponseView = {
      reply,
      conversationId: null,
      inputTokens: inputTokensOf(this.model, request),
      record: {
        responseId: reply.messageId,
        model: input.model ?? this.model.name ?? 'unknown',
        instructions: input.instructions ?? null,
        previousResponseId: input.previousResponseId ?? null,
        background: false,
        metadata: input.metadata,
        inputIds: [],
        maxOutputTokens: input.maxOutputTokens ?? null,
        temperature: input.temperature ?? null,
        inputTokens: inputTokensOf(this.model, request),
      },
    };
    return { begun, events: (_from, signal) => this.run(request, begun, reply, signal) };
  }

  /** The model's answer as events; its failure ends them as a failed response. */
  private async *run(request: ChatRequest, begun: ResponseView, opened: Message, signal: AbortSignal): AsyncGenerator<ResponseEvent> {
    let reply = opened;
    let position = 0;
    let outcome: Omit<ReplyOutcome, 'error'> | null = null;
    let failure: unknown;
    // Nothing is stored, but the model was asked: its tokens count, once, before the end is told
    // (or when the client goes away: a stopped answer counts what it wrote).
    let counted = false;
    const countTokens = () => {
      if (counted) return;
      counted = true;
      const usage = outcome?.usage ?? (reply.text === '' ? null : estimatedUsage(this.model, request, reply.text));
      if (usage) this.usage?.countTokens(opened.userId, outcome?.model ?? this.model.name ?? 'unknown', usage);
    };
    try {
      try {
        for await (const chunk of this.model.stream(request, signal)) {
          if (chunk.type === 'finish') {
            outcome = { finishReason: chunk.finishReason, model: chunk.model, usage: chunk.usage };
          } else if (chunk.text !== '') {
            reply = grown(reply, chunk.text, this.clock.now());
            position += replyLength(chunk.text);
            yield { type: 'text', text: chunk.text, position };
          }
        }
        if (outcome === null) throw new ChatModelFailedError('the language model stopped without finishing its reply');
        if (reply.text.trim() === '') throw new ChatModelFailedError('the language model returned an empty reply');
      } catch (error) {
        if (signal.aborted) return; // the client went away: nobody is left to tell
        failure = error;
      }
      countTokens();
      const end: ReplyOutcome =
        failure === undefined
          ? outcome!
          : { finishReason: 'error', model: outcome?.model ?? this.model.name ?? 'unknown', usage: outcome?.usage ?? null, error: failure instanceof DomainError ? failure.message : 'internal server error' };
      yield { type: 'end', view: { ...begun, reply: finished(reply, reply.text, end) }, position, ...(failure !== undefined ? { failure } : {}) };
    } finally {
      countTokens();
    }
  }

  /** The finished messages of the branch the request names, newest first (bounded); none for a new conversation. */
  private async branchAbove(userId: string, place: { conversationId?: string; parentId?: string }): Promise<Message[]> {
    if (place.conversationId === undefined) return [];
    const conversationId = place.conversationId;
    const page = await this.unitOfWork.run(
      (r) => r.messages.pageBranch(conversationId, userId, { leafId: place.parentId ?? null, order: 'desc', limit: this.limits.historyMessages, after: null }),
      { atomic: false },
    );
    return page.messages.map((m) => m.message).filter((m) => m.status === 'completed');
  }
}

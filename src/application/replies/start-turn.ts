import { recentHistory, type EarlierMessage } from '../../domain/chat-history.js';
import { Conversation } from '../../domain/conversation.js';
import { ConversationNotFoundError, FieldInvalidError, MessageIdConflictError, MessageNotFoundError, ReplyInProgressError } from '../../domain/errors.js';
import { Message, type Role } from '../../domain/message.js';
import type { Metadata } from '../../domain/metadata.js';
import { isCutShort, isStale, openReply } from '../../domain/reply.js';
import type { ChatLimits } from '../chat-limits.js';
import type { ChatRequest } from '../ports/chat-model.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { PersonaSource } from '../ports/persona-source.js';
import type { Repositories, UnitOfWork } from '../ports/unit-of-work.js';
import type { ConversationTitles } from '../conversations/conversation-titles.js';
import type { Naming } from './reply-job.js';
import type { ReplyJobs } from './reply-jobs.js';

export interface ChatInput {
  /** The question; absent when `regenerate` names one already asked. */
  text?: string;
  userId: string;
  conversationId?: string;
  messageId?: string;
  /** The message the question follows (an edit starts a branch there); null: none (an edit of the conversation's first message); absent: the head. */
  parentId?: string | null;
  /** Follow this message if it is stored in the conversation, else the head (the AI SDK's message before the new one). */
  parentIfStored?: string;
  /** Answer again the user message with this id, or the one this reply answers: a new reply beside the earlier ones. */
  regenerate?: string;
  /** A conversation this turn starts is temporary. */
  temporary?: boolean;
  /** Messages stored before the question, in order, as history to the model (OpenAI's input items); the first follows `parentId` or the head. */
  context?: ContextMessage[];
}

/** A message a turn stores before its question. */
export interface ContextMessage {
  role: Role;
  text: string;
  metadata?: Metadata;
}

export interface Turn {
  conversation: Conversation;
  userMessage: Message;
  /**
   * The reply: opened by this turn (`request` says what to ask the model), or the one a
   * repeated message already has — in progress (to join) or answered (to replay).
   */
  reply: Message;
  request: ChatRequest | null;
  /** For a conversation's first turn: how its reply names it. */
  naming?: Naming;
  /** The context messages this turn stored before the question, in order (none for a repeated message). */
  context: Message[];
}

/** Tries when the same message_id is being stored by a concurrent request at the same moment. */
const ATTEMPTS = 3;

/**
 * The start of a chat exchange, which plain and streamed chat share: the user's message is
 * stored (it stays stored whatever the model does) and its reply opened, in one step of the
 * store. A repeated `message_id` finds its reply instead: joins it in progress, replays it
 * answered, or asks again when it was cut short (or died with its producer).
 */
export class StartTurn {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly personaSource: PersonaSource,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly limits: ChatLimits,
    private readonly jobs: ReplyJobs,
    private readonly titles: ConversationTitles,
  ) {}

  async execute(input: ChatInput, modelName: string): Promise<Turn> {
    if (input.regenerate !== undefined) return this.unitOfWork.run((repositories) => this.again(repositories, input, input.regenerate!, modelName), { atomic: false });
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const turn = await this.unitOfWork.run((repositories) => this.begin(repositories, input, modelName), { atomic: false });
      if (turn) return turn;
    }
    throw new Error(`the message could not be stored after ${ATTEMPTS} attempts`);
  }

  /** The turn; null when the same message_id was stored concurrently after the store looked (look again). */
  private async begin(r: Repositories, input: ChatInput, modelName: string): Promise<Turn | null> {
    const now = this.clock.now();
    const candidate = await this.conversationFor(r, input, now);
    const context = (input.context ?? []).map((m, i) =>
      Message.create({
        messageId: this.ids.newId(),
        conversationId: candidate.conversationId,
        userId: candidate.userId,
        role: m.role,
        text: m.text,
        createdAt: now,
        metadata: m.metadata ?? {},
        replyTo: null,
        parentId: i === 0 ? (input.parentId ?? null) : null,
      }),
    );
    const question = Message.create({
      messageId: input.messageId ?? this.ids.newId(),
      conversationId: candidate.conversationId,
      userId: candidate.userId,
      role: 'user',
      text: input.text ?? '',
      createdAt: now,
      metadata: {},
      replyTo: null,
      parentId: context.length > 0 ? null : (input.parentId ?? null),
    });
    const reply = openReply(question, this.ids.newId(), modelName, now);
    const record = await r.replies.begin({
      conversation: candidate,
      userMessage: question,
      ...(context.length > 0 ? { context } : {}),
      parentIfStored: input.parentIfStored ?? null,
      ...(input.parentId === null ? { root: true } : {}),
      reply,
      historyLimit: this.limits.historyMessages,
    });
    const conversation = record.conversation?.assertOwnedBy(input.userId) ?? candidate;
    if (record.unknownParent) throw new FieldInvalidError('parent_id', 'must be a message of this conversation');
    const contextAbove: EarlierMessage[] = [...context].reverse();
    const request = this.requestFor(question, contextAbove.concat(record.history));
    if (record.opened) {
      // Named after the first user message: the earliest of the branch above (as far as the history read reaches), else of the context, else the question.
      const naming = record.titled ? undefined : this.titles.namingFor(question, ([...record.history].reverse().concat(context).find((m) => m.role === 'user') ?? question).text);
      // Stored later than `now` when the message the turn follows was written meanwhile (TurnStart): every message of the turn has that time.
      const at = (m: Message) => (record.stored ? m.with({ createdAt: record.stored.createdAt }) : m);
      return { conversation, userMessage: record.stored ?? question, reply: at(reply), request, context: context.map(at), ...(naming ? { naming } : {}) };
    }
    if (!record.taken) return null;
    // The same request naming no conversation, whose earlier try stored the message (in the conversation
    // it started) after this one looked for it: look again, and find that conversation (conversationFor).
    if (input.conversationId === undefined && record.taken.conversationId !== question.conversationId) return null;

    const difference = record.taken.differenceFrom(question, { metadata: false, createdAt: false, parentId: input.parentId !== undefined });
    if (difference) throw new MessageIdConflictError(question.messageId, difference);
    return { conversation, userMessage: record.taken, context: [], ...(await this.replyOfRepeated(r, record.taken, record.takenReply, modelName, request)) };
  }

  /** Another reply to a question already asked, beside the earlier ones (none may be in progress). */
  private async again(r: Repositories, input: ChatInput, targetId: string, modelName: string): Promise<Turn> {
    const now = this.clock.now();
    const conversationId = input.conversationId;
    if (conversationId === undefined) throw new FieldInvalidError('conversation_id', 'is required with regenerate');
    const conversation = Conversation.create({ conversationId, userId: input.userId, createdAt: now });
    const reply = Message.create({
      messageId: this.ids.newId(),
      conversationId,
      userId: input.userId,
      role: 'assistant',
      text: '',
      createdAt: now,
      metadata: { model: modelName },
      replyTo: null,
      status: 'in_progress',
      progressAt: now,
    });
    const record = await r.replies.regenerate({ conversation, targetId, reply, historyLimit: this.limits.historyMessages });
    if (!record.conversation) throw new ConversationNotFoundError(conversationId);
    record.conversation.assertOwnedBy(input.userId);
    if (!record.question) {
      // The reply is there, but the user message it answers is not (deleted, or there never was one).
      const target = await r.messages.findById(targetId);
      if (target?.conversationId === conversationId) {
        if (target.role === 'system') throw new FieldInvalidError('regenerate', 'names a system message: name a user message, or a reply to answer its question again');
        const why = target.replyTo !== null ? 'it was deleted' : 'no user message comes before it';
        throw new MessageNotFoundError(targetId, `message ${JSON.stringify(targetId)} answers no user message there is (${why}): nothing to answer again`);
      }
      throw new MessageNotFoundError(targetId);
    }
    if (record.running) throw new ReplyInProgressError('a reply to this message is still being written; stop it or wait for it first');
    if (!record.opened) throw new ReplyInProgressError('another reply to this message was started at the same time');
    return { conversation: record.conversation, userMessage: record.question, reply: record.opened, request: this.requestFor(record.question, record.history), context: [] };
  }

  /** What the model is asked: the question, after the finished messages of its own branch (bounded). */
  private requestFor(question: Message, pathAbove: readonly EarlierMessage[]): ChatRequest {
    const history = recentHistory(
      pathAbove.filter((m) => m.replyTo !== question.messageId),
      question,
      { messages: this.limits.historyMessages, chars: this.limits.historyChars },
    );
    return { persona: this.personaSource.persona(), history, text: question.text };
  }

  /** The reply of a question asked again: the one that stands, or a new one replacing one cut short. */
  private async replyOfRepeated(r: Repositories, question: Message, standing: Message | null, modelName: string, request: ChatRequest): Promise<Pick<Turn, 'reply' | 'request'>> {
    for (;;) {
      const before = this.jobs.staleBefore();
      if (standing && isStale(standing, before)) {
        // In this step of the store, not through ReplyJobs.sweepStale, which would wait for a step of its own (on the in-memory store, for this one to end).
        await r.replies.interruptStale(before, this.clock.now());
        standing = await r.messages.findReplyTo(question.messageId);
      }
      if (standing && !isCutShort(standing)) return { reply: standing, request: null };
      const reopened = await r.replies.reopen(openReply(question, this.ids.newId(), modelName, this.clock.now()));
      if (reopened) return { reply: reopened, request };
      // Another request reopened it first: join that one.
      standing = await r.messages.findReplyTo(question.messageId);
    }
  }

  /** The conversation the turn goes to (not yet stored, when new). */
  private async conversationFor(r: Repositories, input: ChatInput, now: Date): Promise<Conversation> {
    const candidate = (conversationId: string) => Conversation.create({ conversationId, userId: input.userId, createdAt: now, temporary: input.temporary });
    if (input.conversationId !== undefined) return candidate(input.conversationId);
    if (input.messageId !== undefined) {
      // A retried request that started a conversation: the message tells which one.
      const earlier = await r.messages.findById(input.messageId);
      if (earlier) {
        const conversation = await r.conversations.findById(earlier.conversationId);
        if (!conversation?.isOwnedBy(input.userId)) throw new MessageIdConflictError(input.messageId, 'conversation');
        return conversation;
      }
    }
    return candidate(this.ids.newId());
  }
}

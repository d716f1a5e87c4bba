import { generatedTitle, titleFromFirstMessage } from '../../domain/conversation.js';
import type { Message } from '../../domain/message.js';
import type { ChatModel } from '../ports/chat-model.js';
import type { PersonaSource } from '../ports/persona-source.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { Naming } from '../replies/reply-job.js';
import { estimatedUsage } from '../usage/estimated-usage.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';

/** How conversations get their titles: a language model's (one short extra call), the start of the first message, or none. */
export const TITLE_MODES = ['model', 'first_message', 'off'] as const;
export type TitleMode = (typeof TITLE_MODES)[number];

export interface TitleSettings {
  mode: TitleMode;
  /** How long the model may take; a later title still replaces the fallback when it comes. */
  timeoutMs: number;
}

const INSTRUCTIONS =
  'Name the conversation that starts with the next message: at most 8 words, in the language of that message. ' +
  'Answer with the title alone: no quotes, no full stop, nothing else.';

/**
 * A conversation's first reply names it, unless its user did (the store never overwrites a user's
 * title). With a model, the proposal is asked for beside the reply (a streamed one's once its first
 * piece is out), so it is usually there by the reply's end; otherwise, or when it fails or is late,
 * the start of the first message is the title, and a late proposal replaces it.
 */
export class ConversationTitles {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly model: ChatModel,
    private readonly personaSource: PersonaSource,
    private readonly settings: TitleSettings,
    private readonly usage?: UsageRecorder,
  ) {}

  /**
   * How a conversation's first turn, asking `question`, names it after its first user message
   * (`firstAsked`, the text of one earlier on the branch, else the question's); undefined when
   * titles are off.
   */
  namingFor(question: Message, firstAsked: string = question.text): Naming | undefined {
    if (this.settings.mode === 'off') return undefined;
    const fallback = titleFromFirstMessage(firstAsked);
    if (this.settings.mode !== 'model') return { fallback };
    const { conversationId } = question;
    let proposal: Promise<string | null> | undefined;
    return {
      fallback,
      propose: () => (proposal ??= this.propose(firstAsked, question.userId)),
      late: (title) => this.unitOfWork.run((r) => r.conversations.nameUnlessUserDid(conversationId, title, 'generated'), { atomic: false }),
    };
  }

  /** The model's title; its tokens count for the user, as every model call's do. */
  private async propose(text: string, userId: string): Promise<string | null> {
    try {
      const request = { persona: this.personaSource.persona(), history: [], text, systemPrompt: INSTRUCTIONS };
      // A model that answers at once (ChatModel.immediate) cannot be late: no deadline is made for it.
      const reply = await this.model.complete(request, this.model.immediate ? undefined : AbortSignal.timeout(this.settings.timeoutMs));
      this.usage?.countTokens(userId, reply.model, reply.usage ?? estimatedUsage(this.model, request, reply.text));
      return generatedTitle(reply.text);
    } catch {
      return null;
    }
  }
}

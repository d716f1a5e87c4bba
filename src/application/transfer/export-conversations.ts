import { ConversationNotFoundError } from '../../domain/errors.js';
import type { Message } from '../../domain/message.js';
import { viewOf, type ConversationView } from '../conversations/conversation-view.js';
import type { ConversationSettings } from '../conversations/sweep-conversations.js';
import type { MessagePosition } from '../ports/message-repository.js';
import type { Repositories, UnitOfWork } from '../ports/unit-of-work.js';

/** A conversation as exported: the conversation and its messages (every branch, or its active one). */
export interface ExportedConversation {
  view: ConversationView;
  messages: Message[];
}

/** Messages read per page, and conversations per page of a user's export. */
const MESSAGE_PAGE = 1000;
const CONVERSATION_PAGE = 50;

/** GET /api/chat/conversations/{id}/export: one conversation of its user; unknown, another user's or temporary: 404. */
export class ExportConversation {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly settings: ConversationSettings,
  ) {}

  async execute(input: { userId: string; conversationId: string; branch: 'all' | 'active' }): Promise<ExportedConversation> {
    const { userId, conversationId } = input;
    const summary = await this.unitOfWork.run((r) => r.conversations.summary(conversationId), { atomic: false });
    if (!summary?.conversation.isOwnedBy(userId) || summary.conversation.temporary) throw new ConversationNotFoundError(conversationId);
    const messages = input.branch === 'all' ? await allMessages(this.unitOfWork, conversationId, userId) : await activeBranch(this.unitOfWork, conversationId, userId);
    return { view: viewOf(summary, this.settings), messages };
  }
}

/**
 * GET /api/users/{user_id}/export: every conversation of a user but temporary ones (archived
 * ones after the others), one at a time, read a page of conversations at a time, so memory holds
 * one page and one conversation whatever the user's size.
 */
export class ExportUser {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly settings: ConversationSettings,
  ) {}

  async *execute(input: { userId: string }): AsyncGenerator<ExportedConversation> {
    const { userId } = input;
    for (const archived of [false, true]) {
      for (let after = null as Parameters<Repositories['conversations']['listByUser']>[2]; ; ) {
        const page = await this.unitOfWork.run((r) => r.conversations.listByUser(userId, CONVERSATION_PAGE, after, archived), { atomic: false });
        for (const summary of page.items) {
          yield { view: viewOf(summary, this.settings), messages: await allMessages(this.unitOfWork, summary.conversation.conversationId, userId) };
        }
        if (!page.next) break;
        after = page.next;
      }
    }
  }
}

/** Every message of the conversation (every branch), in the conversation's order. */
async function allMessages(unitOfWork: UnitOfWork, conversationId: string, userId: string): Promise<Message[]> {
  const messages: Message[] = [];
  for (let after: MessagePosition | null = null; ; ) {
    const { page } = await unitOfWork.run((r) => r.messages.pageOwned(conversationId, userId, 'asc', MESSAGE_PAGE, after), { atomic: false });
    messages.push(...page.messages);
    if (!page.next) return messages;
    after = page.next;
  }
}

/** The active branch, from its first message to the head. */
async function activeBranch(unitOfWork: UnitOfWork, conversationId: string, userId: string): Promise<Message[]> {
  const messages: Message[] = [];
  for (let after: { leafId: string; afterId: string } | null = null; ; ) {
    const page = await unitOfWork.run((r) => r.messages.pageBranch(conversationId, userId, { leafId: null, order: 'asc', limit: MESSAGE_PAGE, after }), { atomic: false });
    messages.push(...page.messages.map((m) => m.message));
    if (!page.next) return messages;
    after = page.next;
  }
}

import { ConversationNotFoundError, FieldInvalidError } from '../../domain/errors.js';
import { userTitle, type ConversationChanges } from '../../domain/conversation.js';
import type { Deleted } from '../ports/conversation-repository.js';
import { viewOf, type ConversationView } from './conversation-view.js';
import type { ConversationSettings } from './sweep-conversations.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { SpeechCache } from '../ports/speech-cache.js';
import type { StopChatReply } from '../replies/stop-chat-reply.js';
import type { UsageMeter } from '../usage/usage-meter.js';

/** GET /api/chat/conversations/{id}: the conversation; unknown, or another user's: 404. */
export class GetConversation {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly settings: ConversationSettings,
  ) {}

  async execute(input: { userId: string; conversationId: string }): Promise<ConversationView> {
    const summary = await this.unitOfWork.run((r) => r.conversations.summary(input.conversationId), { atomic: false });
    if (!summary?.conversation.isOwnedBy(input.userId)) throw new ConversationNotFoundError(input.conversationId);
    return viewOf(summary, this.settings);
  }
}

/** PATCH /api/chat/conversations/{id}: rename (null hands the title back), pin, archive. */
export class UpdateConversation {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly settings: ConversationSettings,
  ) {}

  async execute(input: { userId: string; conversationId: string; changes: ConversationChanges }): Promise<ConversationView> {
    const { title, pinned, archived } = input.changes;
    if (title === undefined && pinned === undefined && archived === undefined) throw new FieldInvalidError('title', 'give title, pinned or archived');
    const changes: ConversationChanges = { pinned, archived, title: typeof title === 'string' ? userTitle(title) : title };
    const summary = await this.unitOfWork.run((r) => r.conversations.update(input.conversationId, input.userId, changes), { atomic: false });
    if (!summary) throw new ConversationNotFoundError(input.conversationId);
    return viewOf(summary, this.settings);
  }
}

/**
 * DELETE /api/chat/conversations/{id}: the conversation with its messages, sessions and cached
 * speech; a reply in progress is stopped first (wherever it is produced). Unknown: zeros;
 * another user's: 404.
 */
export class DeleteConversation {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly stop: StopChatReply,
    private readonly speechCache: SpeechCache,
  ) {}

  async execute(input: { userId: string; conversationId: string }): Promise<Deleted> {
    const { userId, conversationId } = input;
    const found = await this.unitOfWork.run(
      async (r) => {
        const conversation = await r.conversations.findById(conversationId);
        return conversation ? { conversation, running: await r.replies.findInProgress(conversationId) } : null;
      },
      { atomic: false },
    );
    if (!found) return { conversations: 0, messages: 0, sessions: 0 };
    found.conversation.assertOwnedBy(userId);
    if (found.running) await this.stop.execute({ userId, messageId: found.running.messageId }).catch(() => undefined);
    const deleted = await this.unitOfWork.run((r) => r.conversations.deleteOwned(conversationId, userId), { atomic: false });
    await this.speechCache.forget({ conversationId });
    return deleted;
  }
}

/**
 * DELETE /api/users/{user_id}: everything of a user — every conversation with its messages and
 * sessions, their cached speech, and the user. Replies in progress are stopped first.
 */
export class EraseUser {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly stop: StopChatReply,
    private readonly speechCache: SpeechCache,
    private readonly usage?: UsageMeter,
  ) {}

  async execute(input: { userId: string }): Promise<Deleted & { users: number }> {
    const { userId } = input;
    const running = await this.unitOfWork.run((r) => r.replies.inProgressOf(userId), { atomic: false });
    await Promise.all(running.map((reply) => this.stop.execute({ userId, messageId: reply.messageId }).catch(() => undefined)));
    const erased = await this.unitOfWork.run((r) => r.conversations.eraseUser(userId), { atomic: false });
    await this.speechCache.forget({ userId });
    // Their usage records too (the contract: every record of theirs); counted after the replies were stopped.
    await this.usage?.forget(userId);
    return erased;
  }
}

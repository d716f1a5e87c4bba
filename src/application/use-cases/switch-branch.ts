import { ConversationNotFoundError, MessageNotFoundError } from '../../domain/errors.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';

/**
 * POST /api/chat/switchBranch: the head becomes the most recently created message among
 * `messageId` and its descendants — the branch a "‹ 2/3 ›" control shows.
 */
export class SwitchBranch {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  async execute(input: { userId: string; conversationId: string; messageId: string }): Promise<{ headId: string | null }> {
    const result = await this.unitOfWork.run((r) => r.messages.switchBranch(input.conversationId, input.userId, input.messageId), { atomic: false });
    if (!result.conversation) throw new ConversationNotFoundError(input.conversationId);
    result.conversation.assertOwnedBy(input.userId);
    if (!result.found) throw new MessageNotFoundError(input.messageId);
    return { headId: result.headId };
  }
}

import { FieldInvalidError } from '../../domain/errors.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';

export interface DeleteMessagesInput {
  userId: string;
  conversationId: string;
  /** Empty or undefined: not given. */
  messageIds?: string[];
  /** False or undefined: not given. */
  all?: boolean;
  /** Each listed message's whole subtree goes too. */
  descendants?: boolean;
}

/**
 * DELETE /api/chat/deleteMessages: the listed messages (with their subtrees, when asked), or all
 * of them, never by accident; the tree stays whole (the store splices it).
 */
export class DeleteMessages {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  execute(input: DeleteMessagesInput): Promise<number> {
    const ids = input.messageIds ?? [];
    const all = input.all === true;
    if (all === ids.length > 0) {
      throw new FieldInvalidError('message_ids', all ? 'must not be given together with all: true' : 'give message_ids, or all: true');
    }
    return this.unitOfWork.run(
      async (repositories) => {
        const result = await repositories.messages.deleteOwned(input.conversationId, input.userId, all ? null : [...new Set(ids)], input.descendants === true);
        result.conversation?.assertOwnedBy(input.userId);
        return result.deleted;
      },
      { atomic: false },
    );
  }
}

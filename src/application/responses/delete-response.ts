import { ResponseNotFoundError } from '../../domain/response-errors.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { StopChatReply } from '../replies/stop-chat-reply.js';
import { ownedResponse } from './owned.js';

/**
 * DELETE /v1/responses/{id}: the reply is deleted (a reply in progress is stopped first), with its
 * record; the tree stays whole (its children follow its question). The items its request added
 * stay in their conversation, as in OpenAI's. A response that ended before its first piece: its ending.
 */
export class DeleteResponse {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly stop: StopChatReply,
  ) {}

  async execute(input: { userId: string; responseId: string }): Promise<void> {
    const { reply, ending } = await this.unitOfWork.run((r) => ownedResponse(r, input.userId, input.responseId), { atomic: false });
    if (!reply) {
      const deleted = await this.unitOfWork.run((r) => r.responses.deleteEnding(ending.responseId, input.userId), { atomic: false });
      if (!deleted) throw new ResponseNotFoundError(input.responseId, null);
      return;
    }
    if (reply.status === 'in_progress') await this.stop.execute({ userId: input.userId, messageId: reply.messageId });
    await this.unitOfWork.run((r) => r.messages.deleteOwned(reply.conversationId, input.userId, [reply.messageId]), { atomic: false });
  }
}

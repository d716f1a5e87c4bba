import type { SpeechCache } from '../ports/speech-cache.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { StopChatReply } from '../replies/stop-chat-reply.js';
import { ownedConversation } from './owned.js';

/** Replies in progress stopped before a deletion, at most (a conversation has few at once). */
const MOST_RUNNING = 16;

/**
 * DELETE /v1/conversations/{id}: the conversation with everything of it — messages (and their
 * responses), sessions, metadata; its replies in progress are stopped first, wherever they run.
 * Afterwards nothing of it is found by either API. (The native API's deletion, issue 24, is the
 * same deletion; one of the two should call the other once both exist.)
 */
export class RemoveConversation {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly stop: StopChatReply,
    private readonly speechCache: SpeechCache,
  ) {}

  async execute(input: { userId: string; conversationId: string }): Promise<void> {
    await this.unitOfWork.run((r) => ownedConversation(r, input.userId, input.conversationId), { atomic: false });
    for (let stopped = 0; stopped < MOST_RUNNING; stopped++) {
      const running = await this.unitOfWork.run((r) => r.replies.findInProgress(input.conversationId), { atomic: false });
      if (!running) break;
      await this.stop.execute({ userId: input.userId, messageId: running.messageId });
    }
    await this.unitOfWork.run((r) => r.responses.deleteConversation(input.conversationId, input.userId), { atomic: false });
    await this.speechCache.forget({ conversationId: input.conversationId });
  }
}

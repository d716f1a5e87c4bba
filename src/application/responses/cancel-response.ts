import { MessageNotFoundError } from '../../domain/errors.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { StopChatReply } from '../replies/stop-chat-reply.js';
import { ownedResponse } from './owned.js';
import { endedView, removedView, viewOf, type ResponseView } from './response-view.js';

/**
 * POST /v1/responses/{id}/cancel: stops the reply wherever it is produced (StopChatReply): the
 * text so far is kept, the response is `cancelled`. A finished one is answered unchanged. A reply
 * stopped before its first piece is removed (as every stopped empty reply): it is answered as its
 * ending says (cancelled, or failed when a failure came first), without text, and found so afterwards.
 */
export class CancelResponse {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly stop: StopChatReply,
  ) {}

  async execute(input: { userId: string; responseId: string }): Promise<ResponseView> {
    const found = await this.unitOfWork.run(
      async (r) => {
        const owned = await ownedResponse(r, input.userId, input.responseId);
        return owned.reply ? { reply: owned.reply, record: await r.responses.findById(owned.reply.messageId) } : owned;
      },
      { atomic: false },
    );
    if (!found.reply) return endedView(found.ending);
    const { reply, record } = found;
    const stopped = await this.stop.execute({ userId: input.userId, messageId: reply.messageId }).catch((error: unknown) => {
      if (error instanceof MessageNotFoundError) return null; // removed meanwhile: it failed before its first piece
      throw error;
    });
    if (stopped) return viewOf(stopped, record);
    // Removed before its first piece, by this stop or by a failure that came first: as its ending says.
    const ending = await this.unitOfWork.run((r) => r.responses.findEnding(reply.messageId), { atomic: false });
    return ending ? endedView(ending) : removedView(viewOf(reply, record));
  }
}

import type { Message } from '../../domain/message.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import { pageOf, type ItemPage, type ItemQuery } from './item-page.js';
import { ownedResponse } from './owned.js';

/**
 * GET /v1/responses/{id}/input_items: the messages the response's request added, in order (a
 * reply of the native API: the question it answers; one that ended before its first piece: its
 * ending's). Items deleted since are left out.
 */
export class ListInputItems {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  async execute(input: { userId: string; responseId: string } & ItemQuery): Promise<ItemPage> {
    const items = await this.unitOfWork.run(
      async (r) => {
        const { reply, ending } = await ownedResponse(r, input.userId, input.responseId);
        const record = reply ? await r.responses.findById(reply.messageId) : ending.record;
        const question = reply ? reply.replyTo : ending.replyTo;
        const ids = record?.inputIds ?? (question ? [question] : []);
        const conversationId = reply?.conversationId ?? ending!.conversationId;
        const found = await Promise.all(ids.map((id) => r.messages.findById(id)));
        return found.filter((m): m is Message => m !== null && m.conversationId === conversationId);
      },
      { atomic: false },
    );
    return pageOf(items, input);
  }
}

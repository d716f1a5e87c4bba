import { FieldInvalidError } from '../../domain/errors.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ItemPage, ItemQuery } from './item-page.js';
import { ownedConversation } from './owned.js';

/**
 * GET /v1/conversations/{id}/items: the active branch (from the first message to the head), a
 * page at a time in either order; `after` names the last item of the page before (one not on the
 * branch, or not in the conversation, is a 400 naming it). A page costs
 * the same at any depth (the branch pages of the message repository).
 */
export class ListConversationItems {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  execute(input: { userId: string; conversationId: string } & ItemQuery): Promise<ItemPage> {
    const { userId, conversationId, order, limit } = input;
    return this.unitOfWork.run(
      async (r) => {
        await ownedConversation(r, userId, conversationId);
        let after = null;
        if (input.after !== undefined) {
          // An item that is not (or no longer) in the conversation: no page follows it, and saying none would end a client's paging early.
          const anchor = await r.messages.findById(input.after);
          if (anchor?.conversationId !== conversationId) throw new FieldInvalidError('after', 'must be the id of an item of this list');
          const { headId } = await r.messages.pageBranch(conversationId, userId, { leafId: null, order: 'desc', limit: 1, after: null });
          if (headId === null) return { items: [], hasMore: false };
          after = { leafId: headId, afterId: input.after };
        }
        const page = await r.messages.pageBranch(conversationId, userId, { leafId: null, order, limit, after });
        // An item of another branch is no item of this list: nothing follows it on the branch (only the head may end it).
        // An ascending page says so itself; a descending one goes up from it whatever its branch, so the branch is asked.
        if (after && after.afterId !== after.leafId) {
          const onward = order === 'asc' ? page : await r.messages.pageBranch(conversationId, userId, { leafId: null, order: 'asc', limit: 1, after });
          if (onward.messages.length === 0) throw new FieldInvalidError('after', 'must be the id of an item of this list');
        }
        return { items: page.messages.map((m) => m.message), hasMore: page.next !== null };
      },
      { atomic: false },
    );
  }
}

import { FieldInvalidError } from '../../domain/errors.js';
import type { Message } from '../../domain/message.js';
import type { SortOrder } from '../ports/message-repository.js';

/** OpenAI's list paging: `limit` items after the one named `after`, in `order`. */
export interface ItemQuery {
  limit: number;
  order: SortOrder;
  after?: string;
}

export interface ItemPage {
  items: Message[];
  hasMore: boolean;
}

/** A page of `items` (oldest first); an `after` that is none of them is a 400 naming it. */
export function pageOf(items: Message[], query: ItemQuery): ItemPage {
  const ordered = query.order === 'asc' ? items : [...items].reverse();
  let start = 0;
  if (query.after !== undefined) {
    const index = ordered.findIndex((m) => m.messageId === query.after);
    if (index === -1) throw new FieldInvalidError('after', 'must be the id of an item of this list');
    start = index + 1;
  }
  return { items: ordered.slice(start, start + query.limit), hasMore: ordered.length > start + query.limit };
}

import DataLoader from 'dataloader';
import type { ConversationName } from '../../application/ports/reply-repository.js';
import type { ResponseEnding } from '../../application/ports/response-repository.js';
import type { StoredReplies } from '../../application/ports/stored-replies.js';
import type { UnitOfWork } from '../../application/ports/unit-of-work.js';
import type { Message } from '../../domain/message.js';

/** Most replies read in one statement. */
const MAX_BATCH = 500;

/**
 * Reads asked for in the same turn of the event loop go to the store as one `findByIds`
 * (DataLoader, without its cache: every read sees the store as it is), sent once the turn's
 * I/O callbacks have run (setImmediate), so the reads of requests that came in together travel
 * together too. A thousand followers polling on one tick, or a thousand streams resumed at once
 * after a reconnect, cost a few statements, not a thousand.
 */
export class BatchedStoredReplies implements StoredReplies {
  private readonly loader: DataLoader<string, Message | null>;
  private readonly names: DataLoader<{ conversationId: string; replyId: string }, ConversationName | null>;

  constructor(private readonly store: UnitOfWork) {
    const batching = { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: (dispatch: () => void) => setImmediate(dispatch) } as const;
    this.loader = new DataLoader(async (ids) => {
      const found = new Map((await store.run((r) => r.messages.findByIds(ids), { atomic: false })).map((message) => [message.messageId, message]));
      return ids.map((id) => found.get(id) ?? null);
    }, batching);
    this.names = new DataLoader(async (replies) => {
      const named = await store.run((r) => r.conversations.namedBy(replies), { atomic: false });
      return replies.map((reply) => named.get(reply.replyId) ?? null);
    }, batching);
  }

  read(replyId: string): Promise<Message | null> {
    return this.loader.load(replyId);
  }

  namedBy(reply: Message): Promise<ConversationName | null> {
    return this.names.load({ conversationId: reply.conversationId, replyId: reply.messageId });
  }

  /** Read alone: a reply gone before its first piece is rare. */
  ending(replyId: string): Promise<ResponseEnding | null> {
    return this.store.run((r) => r.responses.findEnding(replyId), { atomic: false });
  }

  extendInterrupted(replyId: string, text: string): Promise<Message | null> {
    return this.store.run((r) => r.replies.extendInterrupted(replyId, text), { atomic: false });
  }
}

import { isStale } from '../../domain/reply.js';
import type { MessagePage, MessagePosition, SortOrder } from '../ports/message-repository.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ReplyJobs } from '../replies/reply-jobs.js';

export interface LoadMessagesInput {
  userId: string;
  conversationId: string;
  limit: number;
  order: SortOrder;
  /** Where the previous page ended; null for the first page. */
  after: MessagePosition | null;
}

/**
 * POST /api/chat/loadMessages: one page of a conversation, keyset-paginated, in one read. A
 * reply in progress shows its text so far; one whose producer died is shown (and stored) as
 * interrupted as soon as it is stale.
 */
export class LoadMessages {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly jobs: ReplyJobs,
  ) {}

  async execute(input: LoadMessagesInput): Promise<MessagePage> {
    const page = await this.read(input);
    const staleBefore = this.jobs.staleBefore();
    if (!page.messages.some((message) => isStale(message, staleBefore))) return page;
    await this.jobs.sweepStale();
    return this.read(input);
  }

  private read({ userId, conversationId, order, limit, after }: LoadMessagesInput): Promise<MessagePage> {
    return this.unitOfWork.run(
      async (repositories) => {
        const { conversation, page } = await repositories.messages.pageOwned(conversationId, userId, order, limit, after);
        conversation?.assertOwnedBy(userId);
        return page;
      },
      { atomic: false },
    );
  }
}

import type { Message } from '../../domain/message.js';
import { FieldInvalidError } from '../../domain/errors.js';
import { isStale } from '../../domain/reply.js';
import type { BranchPosition, MessagePosition, Siblings, SortOrder } from '../ports/message-repository.js';
import type { Repositories, UnitOfWork } from '../ports/unit-of-work.js';
import type { ReplyJobs } from '../replies/reply-jobs.js';

/** Which messages a page lists: one branch (the active one, or the path to `leafId`), or every message of every branch. */
export type LoadMessagesInput = {
  userId: string;
  conversationId: string;
  limit: number;
  order: SortOrder;
} & (
  | { branch: 'all'; after: MessagePosition | null }
  | { branch: 'one'; leafId: string | null; after: BranchPosition | null }
);

export interface LoadedPage {
  headId: string | null;
  /** In branch listings, each message has its siblings. */
  messages: { message: Message; siblings?: Siblings }[];
  next: { branch: 'all'; position: MessagePosition } | { branch: 'one'; position: BranchPosition } | null;
}

/**
 * POST /api/chat/loadMessages: one page of a conversation, in one read — of a branch (from its
 * first message, or from its last one up) or of all its messages in the conversation order,
 * keyset-paginated either way. A reply in progress shows its text so far; one whose producer died
 * is shown (and stored) as interrupted as soon as it is stale.
 */
export class LoadMessages {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly jobs: ReplyJobs,
  ) {}

  async execute(input: LoadMessagesInput): Promise<LoadedPage> {
    const page = await this.read(input);
    const staleBefore = this.jobs.staleBefore();
    if (!page.messages.some(({ message }) => isStale(message, staleBefore))) return page;
    await this.jobs.sweepStale();
    return this.read(input);
  }

  private read(input: LoadMessagesInput): Promise<LoadedPage> {
    const { userId, conversationId, order, limit } = input;
    return this.unitOfWork.run(
      async (r): Promise<LoadedPage> => {
        if (input.branch === 'all') {
          const { conversation, headId, page } = await r.messages.pageOwned(conversationId, userId, order, limit, input.after);
          conversation?.assertOwnedBy(userId);
          return {
            headId,
            messages: page.messages.map((message) => ({ message })),
            next: page.next ? { branch: 'all', position: page.next } : null,
          };
        }
        const page = await r.messages.pageBranch(conversationId, userId, { leafId: input.leafId, order, limit, after: input.after });
        page.conversation?.assertOwnedBy(userId);
        if (page.conversation && !page.leafFound) throw new FieldInvalidError('leaf_id', 'must be a message of this conversation');
        // A cursor whose branch end, or whose last message and its parent, were deleted since has nothing to go on
        // from: said so, rather than an empty page that looks like the branch's end.
        if (input.after && page.messages.length === 0 && (await anchorsGone(r, conversationId, input.after))) {
          throw new FieldInvalidError('cursor', 'the messages it goes on from were deleted since: load the first page again');
        }
        return { headId: page.headId, messages: page.messages, next: page.next ? { branch: 'one', position: page.next } : null };
      },
      { atomic: false },
    );
  }
}

/** Whether a branch cursor's branch end is gone, or both its last message and that message's parent. */
async function anchorsGone(r: Repositories, conversationId: string, after: BranchPosition): Promise<boolean> {
  const gone = async (id: string) => (await r.messages.findById(id))?.conversationId !== conversationId;
  if (await gone(after.leafId)) return true;
  if (!(await gone(after.afterId))) return false;
  return typeof after.afterParentId === 'string' ? gone(after.afterParentId) : after.afterParentId === undefined;
}

import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ReplyFeed } from './reply-feed.js';
import type { ReplyJobs } from './reply-jobs.js';
import { replyStream, type ChatReplyStream } from './stream-chat-reply.js';

/** GET /v1/chat/stream/{conversation_id}/stream (the AI SDK's resume): the conversation's reply in progress, or null. */
export class FindReplyInProgress {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly feed: ReplyFeed,
    private readonly jobs: ReplyJobs,
  ) {}

  async execute(input: { userId: string; conversationId: string }): Promise<ChatReplyStream | null> {
    const reply = await this.unitOfWork.run(
      async (r) => {
        const conversation = (await r.conversations.findById(input.conversationId))?.assertOwnedBy(input.userId);
        return conversation ? r.replies.findInProgress(input.conversationId) : null;
      },
      { atomic: false },
    );
    return reply ? replyStream(this.feed, this.jobs, reply, false) : null;
  }
}

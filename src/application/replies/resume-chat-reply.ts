import { MessageNotFoundError } from '../../domain/errors.js';
import type { Message } from '../../domain/message.js';
import type { ReplyFeed } from './reply-feed.js';
import type { ReplyJobs } from './reply-jobs.js';
import type { StoredReplies } from '../ports/stored-replies.js';
import { replyStream, type ChatReplyStream } from './stream-chat-reply.js';

/** The assistant reply `messageId` of `userId`'s conversation, else MessageNotFoundError (404). */
export async function findReply(stored: StoredReplies, userId: string, messageId: string): Promise<Message> {
  const reply = await stored.read(messageId);
  if (!reply || reply.role !== 'assistant' || reply.userId !== userId) throw new MessageNotFoundError(messageId);
  return reply;
}

/** GET /v1/chat/stream/{message_id}: a reply's events from a position, wherever it is produced. */
export class ResumeChatReply {
  constructor(
    private readonly stored: StoredReplies,
    private readonly feed: ReplyFeed,
    private readonly jobs: ReplyJobs,
  ) {}

  async execute(input: { userId: string; messageId: string }): Promise<ChatReplyStream> {
    return replyStream(this.feed, this.jobs, await findReply(this.stored, input.userId, input.messageId), false);
  }
}

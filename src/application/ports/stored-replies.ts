import type { Message } from '../../domain/message.js';
import type { ConversationName } from './reply-repository.js';
import type { ResponseEnding } from './response-repository.js';

/**
 * Replies as the store holds them now, read by id, for followers of replies produced elsewhere:
 * reads asked for at the same moment may travel to the store together (never from a cache).
 */
export interface StoredReplies {
  read(replyId: string): Promise<Message | null>;
  /** The title of the reply's conversation when this reply named it (ConversationRepository.namedBy), else null. */
  namedBy(reply: Message): Promise<ConversationName | null>;
  /** How a reply removed before its first piece ended (ResponseRepository.findEnding), else null. */
  ending(replyId: string): Promise<ResponseEnding | null>;
  /** ReplyRepository.extendInterrupted. */
  extendInterrupted(replyId: string, text: string): Promise<Message | null>;
}

import { ConversationNotFoundError } from './errors.js';
import { assertClientId } from './ids.js';
import { truncateCodePoints } from './text.js';

/** Without a session title, a conversation is titled by the start of its first message. */
export const TITLE_FROM_MESSAGE_LENGTH = 80;

/** A conversation's title: its latest titled session's, else the start of its first message, else none. */
export function conversationTitle(sessionTitle: string | null, firstMessageText: string | null): string | null {
  if (sessionTitle !== null) return sessionTitle;
  return firstMessageText === null ? null : truncateCodePoints(firstMessageText, TITLE_FROM_MESSAGE_LENGTH);
}

/** A conversation belongs to the user who first wrote to it. */
export class Conversation {
  private constructor(
    readonly conversationId: string,
    readonly userId: string,
    readonly createdAt: Date,
  ) {}

  static create(props: { conversationId: string; userId: string; createdAt: Date }): Conversation {
    return new Conversation(
      assertClientId(props.conversationId, 'conversation_id'),
      assertClientId(props.userId, 'user_id'),
      props.createdAt,
    );
  }

  static restore(props: { conversationId: string; userId: string; createdAt: Date }): Conversation {
    return new Conversation(props.conversationId, props.userId, props.createdAt);
  }

  isOwnedBy(userId: string): boolean {
    return this.userId === userId;
  }

  /** Another user's conversation is reported as not found, so ids cannot be probed. */
  assertOwnedBy(userId: string): this {
    if (!this.isOwnedBy(userId)) throw new ConversationNotFoundError(this.conversationId);
    return this;
  }
}

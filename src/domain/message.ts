import { FieldInvalidError } from './errors.js';
import { assertClientId } from './ids.js';
import { assertMetadata, jsonEqual, type Metadata } from './metadata.js';
import { hasUnstorableCharacters, UNSTORABLE_RULE } from './text.js';

export const ROLES = ['user', 'assistant', 'system'] as const;
export type Role = (typeof ROLES)[number];

export interface MessageProps {
  messageId: string;
  conversationId: string;
  userId: string;
  role: Role;
  text: string;
  createdAt: Date;
  metadata: Metadata;
  /** For an assistant reply made by the chat endpoint: the user message it answers. */
  replyTo: string | null;
}

export class Message {
  private constructor(private readonly props: MessageProps) {}

  static create(props: MessageProps): Message {
    assertClientId(props.messageId, 'message_id');
    assertClientId(props.conversationId, 'conversation_id');
    assertClientId(props.userId, 'user_id');
    if (!ROLES.includes(props.role)) {
      throw new FieldInvalidError('role', `must be one of ${ROLES.join(', ')}`);
    }
    if (typeof props.text !== 'string' || props.text.trim() === '') {
      throw new FieldInvalidError('text', 'must be a non-empty string');
    }
    if (hasUnstorableCharacters(props.text)) throw new FieldInvalidError('text', UNSTORABLE_RULE);
    if (Number.isNaN(props.createdAt.getTime())) {
      throw new FieldInvalidError('created_at', 'must be a valid timestamp');
    }
    return new Message({ ...props, metadata: assertMetadata(props.metadata) });
  }

  static restore(props: MessageProps): Message {
    return new Message(props);
  }

  get messageId(): string { return this.props.messageId; }
  get conversationId(): string { return this.props.conversationId; }
  get userId(): string { return this.props.userId; }
  get role(): Role { return this.props.role; }
  get text(): string { return this.props.text; }
  get createdAt(): Date { return this.props.createdAt; }
  get metadata(): Metadata { return this.props.metadata; }
  get replyTo(): string | null { return this.props.replyTo; }

  /**
   * What makes `resent` (the same id sent again) differ from this stored message, or null when
   * it is the same message. Metadata and created_at count only when the client sent them.
   */
  differenceFrom(resent: Message, sent: { metadata: boolean; createdAt: boolean }): string | null {
    if (this.conversationId !== resent.conversationId) return 'conversation';
    if (this.role !== resent.role) return 'role';
    if (this.text !== resent.text) return 'text';
    if (sent.metadata && !jsonEqual(this.metadata, resent.metadata)) return 'metadata';
    if (sent.createdAt && this.createdAt.getTime() !== resent.createdAt.getTime()) return 'created_at';
    return null;
  }

  toProps(): MessageProps {
    return { ...this.props };
  }
}

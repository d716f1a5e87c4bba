import { FieldInvalidError } from './errors.js';
import { assertClientId } from './ids.js';
import { assertMetadata, jsonEqual, type Metadata } from './metadata.js';
import { hasUnstorableCharacters, UNSTORABLE_RULE } from './text.js';

export const ROLES = ['user', 'assistant', 'system'] as const;
export type Role = (typeof ROLES)[number];

/** A reply still being written is `in_progress`; every other message, and every finished reply, is `completed`. */
export const MESSAGE_STATUSES = ['in_progress', 'completed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

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
  /**
   * The message it follows in its conversation's tree (null for a first message). On a message
   * not yet stored, null means "after the conversation's head" (the end of the active branch).
   */
  parentId: string | null;
  status: MessageStatus;
  /** Of a reply in progress: when its producer last advanced it or showed it is alive. */
  progressAt: Date | null;
  /** Of a finished reply: why it ended (the model's reason, or cancelled / error / interrupted). */
  finishReason: string | null;
}

/** A message as made by a client or a use case: completed unless said otherwise. */
export type NewMessage = Omit<MessageProps, 'status' | 'progressAt' | 'finishReason' | 'parentId'> &
  Partial<Pick<MessageProps, 'status' | 'progressAt' | 'finishReason' | 'parentId'>>;

/** What a new state of a stored message may change (see reply.ts for a reply's states). */
export type MessageChanges = Partial<Pick<MessageProps, 'messageId' | 'text' | 'createdAt' | 'metadata' | 'replyTo' | 'status' | 'progressAt' | 'finishReason' | 'parentId'>>;

export class Message {
  private readonly props: MessageProps;

  private constructor(props: MessageProps) {
    // One shape for every message, whatever object it was made from (a request, a row, a spread
    // of another message), so that reading a property stays a fast, monomorphic load.
    this.props = {
      messageId: props.messageId,
      conversationId: props.conversationId,
      userId: props.userId,
      role: props.role,
      text: props.text,
      createdAt: props.createdAt,
      metadata: props.metadata,
      replyTo: props.replyTo,
      parentId: props.parentId,
      status: props.status,
      progressAt: props.progressAt,
      finishReason: props.finishReason,
    };
  }

  static create(input: NewMessage): Message {
    const props: MessageProps = {
      messageId: input.messageId,
      conversationId: input.conversationId,
      userId: input.userId,
      role: input.role,
      text: input.text,
      createdAt: input.createdAt,
      metadata: input.metadata,
      replyTo: input.replyTo,
      parentId: input.parentId ?? null,
      status: input.status ?? 'completed',
      progressAt: input.progressAt ?? null,
      finishReason: input.finishReason ?? null,
    };
    if (props.parentId !== null) assertClientId(props.parentId, 'parent_id');
    assertClientId(props.messageId, 'message_id');
    assertClientId(props.conversationId, 'conversation_id');
    assertClientId(props.userId, 'user_id');
    if (!ROLES.includes(props.role)) {
      throw new FieldInvalidError('role', `must be one of ${ROLES.join(', ')}`);
    }
    // Only a reply still being written may be empty (it has not said anything yet).
    if (typeof props.text !== 'string' || (props.status === 'completed' && props.text.trim() === '')) {
      throw new FieldInvalidError('text', 'must be a non-empty string');
    }
    if (hasUnstorableCharacters(props.text)) throw new FieldInvalidError('text', UNSTORABLE_RULE);
    if (Number.isNaN(props.createdAt.getTime())) {
      throw new FieldInvalidError('created_at', 'must be a valid timestamp');
    }
    assertMetadata(props.metadata);
    return new Message(props);
  }

  /** A message as it was stored (no checks: it passed them when it was made). */
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
  get parentId(): string | null { return this.props.parentId; }
  get status(): MessageStatus { return this.props.status; }
  get progressAt(): Date | null { return this.props.progressAt; }
  get finishReason(): string | null { return this.props.finishReason; }

  /**
   * What makes `resent` (the same id sent again) differ from this stored message, or null when
   * it is the same message. Metadata, created_at and parent_id count only when the client sent them.
   */
  differenceFrom(resent: Message, sent: { metadata: boolean; createdAt: boolean; parentId?: boolean }): string | null {
    if (this.conversationId !== resent.conversationId) return 'conversation';
    if (sent.parentId && this.parentId !== resent.parentId) return 'parent_id';
    if (this.role !== resent.role) return 'role';
    if (this.text !== resent.text) return 'text';
    if (sent.metadata && !jsonEqual(this.metadata, resent.metadata)) return 'metadata';
    if (sent.createdAt && this.createdAt.getTime() !== resent.createdAt.getTime()) return 'created_at';
    return null;
  }

  /** This message in a new state (a reply growing or finishing: reply.ts). */
  with(changes: MessageChanges): Message {
    return new Message({ ...this.props, ...changes });
  }

  toProps(): MessageProps {
    return { ...this.props };
  }
}

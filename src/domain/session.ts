import { FieldInvalidError } from './errors.js';
import { assertClientId } from './ids.js';
import { assertMetadata, type Metadata } from './metadata.js';
import { hasUnstorableCharacters, UNSTORABLE_RULE } from './text.js';

export interface SessionProps {
  sessionId: string;
  conversationId: string;
  userId: string;
  title: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
  metadata: Metadata;
  createdAt: Date;
  updatedAt: Date;
}

export type SessionChanges = Partial<Pick<SessionProps, 'title' | 'startedAt' | 'endedAt' | 'metadata'>>;

/** A saved chat session: a titled, timed span of one conversation. */
export class Session {
  private constructor(private readonly props: SessionProps) {}

  static create(props: SessionProps): Session {
    assertClientId(props.sessionId, 'session_id');
    assertClientId(props.conversationId, 'conversation_id');
    assertClientId(props.userId, 'user_id');
    return new Session(Session.checked(props));
  }

  static restore(props: SessionProps): Session {
    return new Session(props);
  }

  private static checked(props: SessionProps): SessionProps {
    if (props.startedAt && props.endedAt && props.endedAt < props.startedAt) {
      throw new FieldInvalidError('ended_at', 'must not be before started_at');
    }
    if (props.title !== null && hasUnstorableCharacters(props.title)) throw new FieldInvalidError('title', UNSTORABLE_RULE);
    return { ...props, metadata: assertMetadata(props.metadata) };
  }

  /** Fields that were sent replace the stored ones; omitted fields stay as they were. */
  update(changes: SessionChanges, now: Date): Session {
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    return new Session(Session.checked({ ...this.props, ...defined, updatedAt: now }));
  }

  belongsTo(conversationId: string): boolean {
    return this.props.conversationId === conversationId;
  }

  get sessionId(): string { return this.props.sessionId; }
  get conversationId(): string { return this.props.conversationId; }
  get userId(): string { return this.props.userId; }
  get title(): string | null { return this.props.title; }
  get startedAt(): Date | null { return this.props.startedAt; }
  get endedAt(): Date | null { return this.props.endedAt; }
  get metadata(): Metadata { return this.props.metadata; }
  get createdAt(): Date { return this.props.createdAt; }
  get updatedAt(): Date { return this.props.updatedAt; }

  toProps(): SessionProps {
    return { ...this.props };
  }
}

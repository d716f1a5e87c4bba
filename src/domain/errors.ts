/**
 * Domain errors. Each carries a stable `code`; the HTTP adapter maps classes to statuses in
 * one table, so nothing here knows about HTTP.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A client-supplied value breaks a rule; `field` names it (dotted path). */
export class FieldInvalidError extends DomainError {
  readonly code = 'invalid_field';
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

/** Unknown conversation, or one that belongs to another user (indistinguishable on purpose). */
export class ConversationNotFoundError extends DomainError {
  readonly code = 'conversation_not_found';
  constructor(readonly conversationId: string) {
    super(`conversation ${JSON.stringify(conversationId)} not found`);
  }
}

export class MessageNotFoundError extends DomainError {
  readonly code = 'message_not_found';
  constructor(readonly messageId: string) {
    super(`message ${JSON.stringify(messageId)} not found`);
  }
}

/**
 * A client-supplied message_id was reused with different content. When the stored message is in
 * another conversation (maybe another user's), the answer says only that the id is taken: where
 * it is used is none of the caller's business.
 */
export class MessageIdConflictError extends DomainError {
  readonly code = 'message_id_conflict';
  constructor(
    readonly messageId: string,
    readonly difference: string,
  ) {
    super(
      difference === 'conversation'
        ? `message_id ${JSON.stringify(messageId)} is already taken; choose another`
        : `message_id ${JSON.stringify(messageId)} already exists with a different ${difference}`,
    );
  }
}

/** A session_id that already belongs to another conversation. */
export class SessionConflictError extends DomainError {
  readonly code = 'session_conflict';
  constructor(readonly sessionId: string) {
    super(`session_id ${JSON.stringify(sessionId)} already belongs to another conversation`);
  }
}

export class ChatModelFailedError extends DomainError {
  readonly code = 'chat_model_failed';
}

export class ChatModelTimedOutError extends DomainError {
  readonly code = 'chat_model_timeout';
}

export class SpeechEngineFailedError extends DomainError {
  readonly code = 'speech_engine_failed';
}

export class SpeechEngineTimedOutError extends DomainError {
  readonly code = 'speech_engine_timeout';
}

/** Too much work already queued (speech synthesis); the client may retry later. */
export class CapacityExhaustedError extends DomainError {
  readonly code = 'capacity_exhausted';
}

/** A required dependency, such as the database, cannot be reached. */
export class DependencyUnavailableError extends DomainError {
  readonly code = 'dependency_unavailable';
}

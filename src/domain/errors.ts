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
  readonly code = 'invalid_value'; // as OpenAI's errors name a value that breaks a rule
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
  constructor(
    readonly conversationId: string,
    /** The request field that named it, where one did (OpenAI's errors name it in `param`). */
    readonly field: string | null = null,
  ) {
    super(`conversation ${JSON.stringify(conversationId)} not found`);
  }
}

export class MessageNotFoundError extends DomainError {
  readonly code = 'message_not_found';
  /** `detail`: what was not found, when it is not the message itself (the one a reply answers, say). */
  constructor(
    readonly messageId: string,
    detail?: string,
  ) {
    super(detail ?? `message ${JSON.stringify(messageId)} not found`);
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

/** A voice the speech engine does not have; the edge says where the voices are listed. */
export class VoiceNotFoundError extends DomainError {
  readonly code = 'voice_not_found';
  constructor(readonly voice: string) {
    super(`voice ${JSON.stringify(voice)} not found`);
  }
}

/** An audio format the configured speech engine cannot make. */
export class AudioFormatUnsupportedError extends DomainError {
  readonly code = 'audio_format_unsupported';
  constructor(
    readonly format: string,
    readonly supported: readonly string[],
  ) {
    super(`the speech engine cannot make ${format} audio`);
  }
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

/** A reply the service stopped writing because it was shutting down (it is stored as it was). */
export class ReplyInterruptedError extends DomainError {
  readonly code = 'reply_interrupted';
}

/** A stored reply that is still being written, where only a finished one will do. */
export class ReplyInProgressError extends DomainError {
  readonly code = 'reply_in_progress';
}

/** A user over a limit (requests per minute, tokens per day): refused, counted for nothing. */
export class UsageLimitReachedError extends DomainError {
  readonly code = 'rate_limit_exceeded';
  constructor(
    /** Which limit: `requests` or `tokens`. */
    readonly limit: 'requests' | 'tokens',
    /** When that limit lets the user in again. */
    readonly retryAfterMs: number,
    message: string,
  ) {
    super(message);
  }
}

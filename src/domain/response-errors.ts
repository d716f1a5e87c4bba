import { DomainError } from './errors.js';

/**
 * An unknown response, another user's, or a message that is no reply (indistinguishable on
 * purpose, as for conversations). `field` names the request field that named it, if any.
 */
export class ResponseNotFoundError extends DomainError {
  readonly code = 'response_not_found';
  constructor(
    readonly responseId: string,
    readonly field: string | null = null,
  ) {
    super(`response ${JSON.stringify(responseId)} not found`);
  }
}

/** An item (a message) that is not in the conversation named, or not there at all. */
export class ItemNotFoundError extends DomainError {
  readonly code = 'item_not_found';
  constructor(readonly itemId: string) {
    super(`item ${JSON.stringify(itemId)} not found`);
  }
}

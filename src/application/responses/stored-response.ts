import type { Message } from '../../domain/message.js';
import type { ResponseRecord } from '../ports/response-repository.js';
import type { ReplyFeed } from '../replies/reply-feed.js';
import { DomainError } from '../../domain/errors.js';
import { begunView, failedView, removedView, viewOf, type ResponseStream, type ResponseView } from './response-view.js';

/** A stored reply as a response stream, from any position, wherever it is produced (ReplyFeed). */
export function storedResponseStream(feed: ReplyFeed, reply: Message, record: ResponseRecord | null): ResponseStream {
  const view = viewOf(reply, record);
  return {
    begun: begunView(view),
    async *events(from, signal) {
      for await (const event of feed.watch(reply, from, signal)) {
        if (event.type === 'text') yield event;
        else if (event.type === 'title') continue; // OpenAI's events have no place for the conversation's title
        else yield { type: 'end', view: endOf(view, event.message, event.failure), position: event.position, ...(event.failure !== undefined ? { failure: event.failure } : {}) };
      }
    },
  };
}

/** The response as its reply ended: as stored; failed, when it failed and was not kept; cancelled, when it was stopped before its first piece. */
function endOf(view: ResponseView, message: Message | null, failure: unknown): ResponseView {
  if (message) return viewOf(message, view.record);
  if (failure !== undefined) return failedView(view, failure instanceof DomainError ? failure.message : 'internal server error');
  return removedView(view);
}

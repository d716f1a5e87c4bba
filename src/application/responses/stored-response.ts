import type { Message } from '../../domain/message.js';
import type { ResponseRecord } from '../ports/response-repository.js';
import type { ReplyFeed } from '../replies/reply-feed.js';
import { begunView, removedView, viewOf, type ResponseStream } from './response-view.js';

/** A stored reply as a response stream, from any position, wherever it is produced (ReplyFeed). */
export function storedResponseStream(feed: ReplyFeed, reply: Message, record: ResponseRecord | null): ResponseStream {
  const view = viewOf(reply, record);
  return {
    begun: begunView(view),
    async *events(from, signal) {
      for await (const event of feed.watch(reply, from, signal)) {
        if (event.type === 'text') yield event;
        else yield { type: 'end', view: event.message ? viewOf(event.message, record) : removedView(view), position: event.position, ...(event.failure !== undefined ? { failure: event.failure } : {}) };
      }
    },
  };
}

import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ReplyFeed } from '../replies/reply-feed.js';
import { ownedResponse } from './owned.js';
import { endedStream, endedView, viewOf, type ResponseStream, type ResponseView } from './response-view.js';
import { storedResponseStream } from './stored-response.js';

/**
 * GET /v1/responses/{id}: a reply, as a response — one the Responses API made (with its request),
 * or any other reply of the user's (the native API's: the same row), or one that ended before its
 * first piece (its ending). `stream` gives its events from a position, live until its end,
 * wherever it is produced.
 */
export class RetrieveResponse {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly feed: ReplyFeed,
  ) {}

  async execute(input: { userId: string; responseId: string }): Promise<ResponseView> {
    const found = await this.find(input);
    return found.reply ? viewOf(found.reply, found.record) : endedView(found.ending);
  }

  async stream(input: { userId: string; responseId: string }): Promise<ResponseStream> {
    const found = await this.find(input);
    return found.reply ? storedResponseStream(this.feed, found.reply, found.record) : endedStream(endedView(found.ending));
  }

  private find(input: { userId: string; responseId: string }) {
    return this.unitOfWork.run(
      async (r) => {
        const found = await ownedResponse(r, input.userId, input.responseId);
        return found.reply ? { ...found, record: await r.responses.findById(found.reply.messageId) } : { ...found, record: null };
      },
      { atomic: false },
    );
  }
}

import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ReplyFeed } from '../replies/reply-feed.js';
import { ownedReply } from './owned.js';
import { viewOf, type ResponseStream, type ResponseView } from './response-view.js';
import { storedResponseStream } from './stored-response.js';

/**
 * GET /v1/responses/{id}: a reply, as a response — one the Responses API made (with its request),
 * or any other reply of the user's (the native API's: the same row). `stream` gives its events
 * from a position, live until its end, wherever it is produced.
 */
export class RetrieveResponse {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly feed: ReplyFeed,
  ) {}

  async execute(input: { userId: string; responseId: string }): Promise<ResponseView> {
    const { reply, record } = await this.find(input);
    return viewOf(reply, record);
  }

  async stream(input: { userId: string; responseId: string }): Promise<ResponseStream> {
    const { reply, record } = await this.find(input);
    return storedResponseStream(this.feed, reply, record);
  }

  private find(input: { userId: string; responseId: string }) {
    return this.unitOfWork.run(
      async (r) => {
        const reply = await ownedReply(r, input.userId, input.responseId);
        return { reply, record: await r.responses.findById(reply.messageId) };
      },
      { atomic: false },
    );
  }
}

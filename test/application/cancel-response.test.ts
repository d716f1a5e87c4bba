import { expect } from 'chai';
import { InMemoryUnitOfWork } from '../../src/adapters/persistence/memory/in-memory-unit-of-work.js';
import type { StopChatReply } from '../../src/application/replies/stop-chat-reply.js';
import { CancelResponse } from '../../src/application/responses/cancel-response.js';
import { MessageNotFoundError } from '../../src/domain/errors.js';
import { Message } from '../../src/domain/message.js';
import { aConversation, aMessage } from '../support/builders.js';
import { uid } from '../support/ids.js';

/**
 * A cancel that meets a failure before the first piece: the reply it found in progress is gone
 * (removed, its ending kept) by the time the stop looks, or the stop's own end is the failure's.
 * It is answered as the ending says, never 404 and never "cancelled" for a failed response.
 */
describe('CancelResponse racing a failure before the first piece', () => {
  const failedNow = async (store: InMemoryUnitOfWork) => {
    const conversation = aConversation();
    const question = aMessage(conversation);
    const reply = Message.create({
      messageId: uid('reply'), conversationId: conversation.conversationId, userId: conversation.userId, role: 'assistant', text: '',
      createdAt: new Date(question.createdAt.getTime() + 1), metadata: { model: 'm' }, replyTo: question.messageId, parentId: question.messageId,
      status: 'in_progress', progressAt: new Date(),
    });
    await store.run((r) => r.replies.begin({ conversation, userMessage: question, reply, historyLimit: 5 }));
    await store.run((r) => r.responses.save({ responseId: reply.messageId, model: 'm', instructions: null, previousResponseId: null, background: true, metadata: {}, inputIds: [question.messageId], maxOutputTokens: null, temperature: null, inputTokens: 3 }));
    const fail = () => store.run((r) => r.replies.finish(reply.with({ status: 'completed', progressAt: null, finishReason: 'error', metadata: { model: 'm', error: 'the language model is unavailable' } }), new Date()));
    return { reply, fail };
  };

  for (const [what, stopThen] of [
    ['the stop finds the reply gone (404 before)', () => Promise.reject(new MessageNotFoundError('gone'))],
    ['the stop ends with the failure, no message (answered "cancelled" before)', () => Promise.resolve(null)],
  ] as const) {
    it(`${what}: answered failed, as stored`, async () => {
      const store = new InMemoryUnitOfWork();
      const { reply, fail } = await failedNow(store);
      const stop = { execute: async () => (await fail(), stopThen()) } as unknown as StopChatReply;
      const view = await new CancelResponse(store, stop).execute({ userId: reply.userId, responseId: reply.messageId });
      expect(view.reply).to.deep.include({ messageId: reply.messageId, text: '', finishReason: 'error' });
      expect(view.reply.metadata.error).to.equal('the language model is unavailable');
    });
  }
});

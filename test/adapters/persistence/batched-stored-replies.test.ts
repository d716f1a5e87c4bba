import { expect } from 'chai';
import { BatchedStoredReplies } from '../../../src/adapters/persistence/batched-stored-replies.js';
import { ReadsRecordingUnitOfWork } from '../../support/recording-unit-of-work.js';
import { aConversation, aMessage } from '../../support/builders.js';
import { uid } from '../../support/ids.js';

describe('BatchedStoredReplies', () => {
  it('sends the reads of callbacks that ran together (requests that came in together) as one, each answered with its own message or null', async () => {
    const unitOfWork = new ReadsRecordingUnitOfWork();
    const conversation = aConversation();
    const stored = Array.from({ length: 10 }, (_, n) => aMessage(conversation, { text: `message ${n}` }));
    await unitOfWork.run((r) => r.messages.append(conversation, stored));
    unitOfWork.reads.length = 0;
    const replies = new BatchedStoredReplies(unitOfWork);
    const asked = [...stored.map((m) => m.messageId), uid('nothing')];
    // Each read from a callback of its own, as each request's handler runs in a callback of its own.
    const answers = await Promise.all(asked.map((id) => new Promise((resolve) => setImmediate(() => resolve(replies.read(id))))));
    expect(answers.map((m) => (m as { text?: string } | null)?.text ?? null)).to.deep.equal([...stored.map((m) => m.text), null]);
    expect(unitOfWork.reads).to.deep.equal([asked]);
  });

  it('reads the store again each time (no cache): a message changed meanwhile is read as it is now', async () => {
    const unitOfWork = new ReadsRecordingUnitOfWork();
    const conversation = aConversation();
    const message = aMessage(conversation, { text: 'before' });
    await unitOfWork.run((r) => r.messages.append(conversation, [message]));
    const replies = new BatchedStoredReplies(unitOfWork);
    expect((await replies.read(message.messageId))?.text).to.equal('before');
    await unitOfWork.run((r) => r.messages.deleteOwned(conversation.conversationId, conversation.userId, [message.messageId]));
    expect(await replies.read(message.messageId)).to.equal(null);
  });
});
